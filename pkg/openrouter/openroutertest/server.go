// Package openroutertest is a stand-in for OpenRouter's API, for tests
// only: no production path may import it (a test in this package fails if
// any non-test Go file outside it does). It exists because OpenRouter
// cannot be reached from the test machines, and it replaces nothing else.
//
// A Server listens on loopback and speaks OpenRouter's wire format: POST
// /chat/completions, as one JSON completion or as server-sent events
// (": OPENROUTER PROCESSING" comment, "chat.completion.chunk" events, usage
// with cost in the last event, "data: [DONE]"), GET /key and GET /models.
// It serves them both at its root and under /api/v1, so it can stand
// directly behind package proxy (whose upstream must be a loopback
// ".../api/v1").
//
// Each model has a Script of Steps; every request naming the model
// consumes its next step, so a test is deterministic. A step can also be
// broken off on the wire (CutOff), as a connection that fails part way. Before consuming
// one, the server checks the request as OpenRouter would: a bearer key
// (401 with OpenRouter's error body otherwise), a known model (400 "… is
// not a valid model ID"), well-formed messages in which every tool result
// answers a tool call of the assistant message before it, tools and
// tool_choice in OpenAI's function format (400 naming the JSON pointer
// otherwise). Every request is recorded, headers and body, for assertions.
package openroutertest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// APIPath is the prefix under which the server also serves the API, as
// https://openrouter.ai does.
const APIPath = "/api/v1"

// Processing is the comment OpenRouter sends to keep a stream alive.
const Processing = ": OPENROUTER PROCESSING"

// maxBody caps a request body, well above what any test sends.
const maxBody = 8 << 20

// Received is one request as the server saw it.
type Received struct {
	Method string
	// Path is the request path as sent; Route is the part after APIPath
	// when it was under it, e.g. "/chat/completions".
	Path, Route string
	Header      http.Header
	Body        []byte
	// Chat is the decoded body of a chat completion request that passed
	// validation; nil otherwise.
	Chat *ChatRequest
	// Status is the status the server answered with.
	Status int
	// Step is the step the request consumed, if any (String() describes it).
	Step *Step
}

// Option configures a Server.
type Option func(*Server)

// WithScript adds model scripts. A later script for the same model
// replaces an earlier one.
func WithScript(scripts ...Script) Option {
	return func(s *Server) {
		for _, sc := range scripts {
			s.models[sc.Model] = &model{script: sc}
		}
	}
}

// WithKey sets the API key the server accepts; by default it makes up a
// random "sk-or-v1-…" key, available as Server.Key.
func WithKey(key string) Option { return func(s *Server) { s.Key = key } }

// WithLimit gives the key a credit limit in US dollars: GET /key reports it
// and what remains, and once completions have cost that much, a chat
// request is answered 402.
func WithLimit(dollars float64) Option { return func(s *Server) { s.limit = &dollars } }

// WithFreeTier makes GET /key report a free-tier key.
func WithFreeTier() Option { return func(s *Server) { s.freeTier = true } }

// Server is a running stand-in for OpenRouter. Its methods may be called
// while requests are being served.
type Server struct {
	// URL is the server's root, http://127.0.0.1:port; the API is served
	// both there and under URL + APIPath.
	URL string
	// Key is the API key the server accepts.
	Key string

	t  testing.TB
	hs *httptest.Server
	// closing ends the requests a Hang step holds when the server closes.
	closing   chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	models   map[string]*model
	reqs     []Received
	gens     int
	usage    float64
	limit    *float64
	freeTier bool
	problems []string
}

type model struct {
	script Script
	next   int
}

// New starts a Server on loopback and closes it when the test ends. A
// request the scripts cannot answer (a model's steps used up, a Func
// step that loops) fails t as well as being answered 500.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	s.t = t
	t.Cleanup(s.Close)
	return s
}

// Start starts a Server on loopback for use outside a test function (an
// Example); the caller must Close it. Problems lists what New would have
// reported to the test.
func Start(opts ...Option) *Server {
	s := &Server{models: map[string]*model{}, closing: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	if s.Key == "" {
		var b [32]byte
		_, _ = rand.Read(b[:])
		s.Key = "sk-or-v1-" + hex.EncodeToString(b[:])
	}
	s.hs = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.hs.URL
	return s
}

// APIBase is URL + APIPath, the form package proxy takes as its upstream.
func (s *Server) APIBase() string { return s.URL + APIPath }

// Close shuts the server down, waiting for requests in flight.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	s.hs.Close()
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.reqs...)
}

// ChatRequests returns the valid chat completion requests that named
// model, in order.
func (s *Server) ChatRequests(model string) []*ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*ChatRequest
	for _, r := range s.reqs {
		if r.Chat != nil && r.Chat.Model == model {
			out = append(out, r.Chat)
		}
	}
	return out
}

// Remaining is how many steps of model's script are left.
func (s *Server) Remaining(model string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.models[model]; m != nil {
		return len(m.script.Steps) - m.next
	}
	return 0
}

// Usage is the total cost of the completions served so far, what GET /key
// reports as usage.
func (s *Server) Usage() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Problems lists what went wrong on the server's side: requests a script
// could not answer.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

func (s *Server) problem(format string, args ...any) string {
	msg := "openroutertest: " + fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.problems = append(s.problems, msg)
	s.mu.Unlock()
	if s.t != nil {
		s.t.Errorf("%s", msg)
	}
	return msg
}

// statusWriter records the status in the request's record before any
// byte of the reply leaves, so a client that has its answer always finds
// the request fully recorded.
type statusWriter struct {
	http.ResponseWriter
	srv    *Server
	idx    int
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.srv.mu.Lock()
		w.srv.reqs[w.idx].Status = code
		w.srv.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// note records what a chat request decoded to and the step it consumed,
// before the reply is written.
func (w *statusWriter) note(chat *ChatRequest, step *Step) {
	w.srv.mu.Lock()
	w.srv.reqs[w.idx].Chat = chat
	w.srv.reqs[w.idx].Step = step
	w.srv.mu.Unlock()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	route := r.URL.Path
	if strings.HasPrefix(route, APIPath+"/") {
		route = route[len(APIPath):]
	}
	s.mu.Lock()
	idx := len(s.reqs)
	s.reqs = append(s.reqs, Received{Method: r.Method, Path: r.URL.Path, Route: route, Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()

	sw := &statusWriter{ResponseWriter: w, srv: s, idx: idx}
	switch {
	case err != nil:
		writeError(sw, http.StatusBadRequest, "could not read the request body: "+err.Error(), nil)
	case len(body) > maxBody:
		writeError(sw, http.StatusRequestEntityTooLarge, "request body too large", nil)
	default:
		s.route(sw, r, route, body)
	}
}

func (s *Server) route(w *statusWriter, r *http.Request, route string, body []byte) {
	method := http.MethodGet
	if route == "/chat/completions" {
		method = http.MethodPost
	}
	switch route {
	case "/chat/completions", "/key", "/auth/key", "/models":
	default:
		writeError(w, http.StatusNotFound, "Not Found", nil)
		return
	}
	if r.Method != method {
		w.Header().Set("Allow", method)
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed", nil)
		return
	}
	if route == "/models" {
		s.serveModels(w)
		return
	}
	if !s.authorized(w, r) {
		return
	}
	if route != "/chat/completions" {
		s.serveKey(w)
		return
	}
	s.serveChat(w, r, body)
}

// authorized answers 401 as OpenRouter does unless the request carries
// exactly "Authorization: Bearer <Key>".
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Values("Authorization")
	if len(v) == 0 || strings.TrimSpace(v[0]) == "" {
		writeError(w, http.StatusUnauthorized, "No auth credentials found", nil)
		return false
	}
	if len(v) != 1 || v[0] != "Bearer "+s.Key {
		writeError(w, http.StatusUnauthorized, "User not found.", nil)
		return false
	}
	return true
}

func (s *Server) serveChat(w *statusWriter, hr *http.Request, body []byte) {
	req, inv := decodeChat(body)
	if inv != nil {
		writeError(w, http.StatusBadRequest, inv.Error(), nil)
		return
	}
	w.note(req, nil)
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, (&invalid{"/model", "required: this test server has no default model"}).Error(), nil)
		return
	}
	s.mu.Lock()
	m := s.models[req.Model]
	if m == nil {
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, req.Model+" is not a valid model ID", nil)
		return
	}
	if s.limit != nil && s.usage >= *s.limit {
		limit := *s.limit
		s.mu.Unlock()
		writeError(w, http.StatusPaymentRequired, fmt.Sprintf("Insufficient credits: this key's limit of $%g is used up. Raise the limit or add credits.", limit),
			map[string]any{"limit_source": "openrouter_key_limit"})
		return
	}
	n := m.next
	if n >= len(m.script.Steps) {
		s.mu.Unlock()
		msg := s.problem("model %s: request %d, but its script has only %d steps", req.Model, n+1, len(m.script.Steps))
		writeError(w, http.StatusInternalServerError, msg, nil)
		return
	}
	m.next++
	step := m.script.Steps[n]
	sc := m.script
	s.gens++
	gen := s.gens
	s.mu.Unlock()

	for depth := 0; step.kind == stepFunc; depth++ {
		if depth == 8 || step.fn == nil {
			msg := s.problem("model %s: step %d: a Func step gave no reply after %d calls", req.Model, n+1, depth)
			writeError(w, http.StatusInternalServerError, msg, nil)
			return
		}
		step = step.fn(req)
	}
	if step.kind == 0 {
		msg := s.problem("model %s: step %d is the zero Step; build steps with Answer, ToolCall, …", req.Model, n+1)
		writeError(w, http.StatusInternalServerError, msg, nil)
		return
	}
	w.note(req, &step)
	if step.kind == stepHang {
		// No status, no byte: the client's own limits must end this.
		select {
		case <-hr.Context().Done():
		case <-s.closing:
		}
		return
	}
	r := &reply{srv: s, script: sc, req: req, body: body, step: step, gen: gen, created: time.Now().Unix()}
	if step.cut > 0 {
		r.write(&cutWriter{statusWriter: w, keep: step.cut})
		s.problem("model %s: step %d: %s: the body is no longer than %d bytes, so nothing was cut", req.Model, n+1, step, step.cut)
		return
	}
	r.write(w)
}

// cutWriter passes on the first keep bytes of a body and then breaks the
// connection off (net/http closes it, unfinished, on ErrAbortHandler).
type cutWriter struct {
	*statusWriter
	keep, n int
}

func (w *cutWriter) Write(b []byte) (int, error) {
	if w.n+len(b) < w.keep {
		w.n += len(b)
		return w.statusWriter.Write(b)
	}
	w.statusWriter.Write(b[:w.keep-w.n])
	w.Flush()
	panic(http.ErrAbortHandler)
}

// writer is what a reply writes to: the request's statusWriter, or a
// cutWriter around it.
type writer interface {
	http.ResponseWriter
	http.Flusher
}

// writeError writes OpenRouter's error body with the status as its code.
func writeError(w http.ResponseWriter, status int, message string, metadata map[string]any) {
	e := map[string]any{"code": status, "message": message}
	if metadata != nil {
		e["metadata"] = metadata
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// What net/http would declare for a body written whole; said here so
	// that a reply CutOff breaks off still declares its whole length.
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Server) serveKey(w http.ResponseWriter) {
	s.mu.Lock()
	usage := s.usage
	var limit, remaining any
	if s.limit != nil {
		limit, remaining = *s.limit, math.Max(0, *s.limit-usage)
	}
	free := s.freeTier
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"label":                 maskKey(s.Key),
		"limit":                 limit,
		"limit_reset":           nil,
		"limit_remaining":       remaining,
		"include_byok_in_limit": false,
		"usage":                 usage,
		"usage_daily":           usage,
		"usage_weekly":          usage,
		"usage_monthly":         usage,
		"byok_usage":            0,
		"byok_usage_daily":      0,
		"byok_usage_weekly":     0,
		"byok_usage_monthly":    0,
		"is_free_tier":          free,
		"is_provisioning_key":   false,
	}})
}

// maskKey is how OpenRouter labels a key: its start and end around "...".
func maskKey(k string) string {
	if len(k) <= 15 {
		return "sk-or-v1-..."
	}
	return k[:12] + "..." + k[len(k)-3:]
}

func (s *Server) serveModels(w http.ResponseWriter) {
	s.mu.Lock()
	ids := make([]string, 0, len(s.models))
	for id := range s.models {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	sort.Strings(ids)
	data := []map[string]any{}
	for _, id := range ids {
		data = append(data, map[string]any{
			"id": id, "name": id, "context_length": 128000,
			"pricing":              map[string]string{"prompt": "0", "completion": "0"},
			"supported_parameters": []string{"tools", "tool_choice", "max_tokens", "temperature", "seed"},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// reply writes one scripted completion.
type reply struct {
	srv     *Server
	script  Script
	req     *ChatRequest
	body    []byte
	step    Step
	gen     int
	created int64
}

// Wire shapes, in OpenRouter's member order.
type (
	completion struct {
		ID                string          `json:"id"`
		Provider          string          `json:"provider"`
		Model             string          `json:"model"`
		Object            string          `json:"object"`
		Created           int64           `json:"created"`
		Choices           []choice        `json:"choices"`
		SystemFingerprint *string         `json:"system_fingerprint"`
		Usage             *usage          `json:"usage,omitempty"`
		Error             json.RawMessage `json:"error,omitempty"`
	}
	choice struct {
		Logprobs           *struct{} `json:"logprobs"`
		FinishReason       *string   `json:"finish_reason"`
		NativeFinishReason *string   `json:"native_finish_reason"`
		Index              int       `json:"index"`
		Message            *message  `json:"message,omitempty"`
		Delta              *message  `json:"delta,omitempty"`
	}
	message struct {
		Role      string          `json:"role,omitempty"`
		Content   json.RawMessage `json:"content,omitempty"`
		Refusal   json.RawMessage `json:"refusal,omitempty"`
		Reasoning json.RawMessage `json:"reasoning,omitempty"`
		ToolCalls []toolCall      `json:"tool_calls,omitempty"`
	}
	toolCall struct {
		ID       string       `json:"id,omitempty"`
		Index    int          `json:"index"`
		Type     string       `json:"type,omitempty"`
		Function functionCall `json:"function"`
	}
	functionCall struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	usage struct {
		PromptTokens            int          `json:"prompt_tokens"`
		CompletionTokens        int          `json:"completion_tokens"`
		TotalTokens             int          `json:"total_tokens"`
		Cost                    float64      `json:"cost"`
		IsBYOK                  bool         `json:"is_byok"`
		PromptTokensDetails     tokenDetails `json:"prompt_tokens_details"`
		CostDetails             costDetails  `json:"cost_details"`
		CompletionTokensDetails tokenDetails `json:"completion_tokens_details"`
	}
	tokenDetails struct {
		CachedTokens    *int `json:"cached_tokens,omitempty"`
		AudioTokens     *int `json:"audio_tokens,omitempty"`
		ReasoningTokens *int `json:"reasoning_tokens,omitempty"`
		ImageTokens     *int `json:"image_tokens,omitempty"`
	}
	costDetails struct {
		UpstreamInferenceCost            *float64 `json:"upstream_inference_cost"`
		UpstreamInferencePromptCost      float64  `json:"upstream_inference_prompt_cost"`
		UpstreamInferenceCompletionsCost float64  `json:"upstream_inference_completions_cost"`
	}
)

var null = json.RawMessage("null")

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func strp(s string) *string { return &s }

func (r *reply) id() string {
	return "gen-" + strconv.FormatInt(r.created, 10) + "-" + genToken(fmt.Sprint("gen", r.gen), 20)
}

func (r *reply) callID(k int) string { return "call_" + genToken(fmt.Sprint(r.id(), "/", k), 24) }

// genToken derives a deterministic alphanumeric string from seed.
func genToken(seed string, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	sum := sha256.Sum256([]byte(seed))
	out := make([]byte, n)
	for i := range out {
		out[i] = alphabet[int(sum[i%len(sum)]+byte(i/len(sum)))%len(alphabet)]
	}
	return string(out)
}

func (r *reply) provider() string {
	if r.script.Provider != "" {
		return r.script.Provider
	}
	return "OpenRouterTest"
}

func (r *reply) envelope(object string) completion {
	return completion{ID: r.id(), Provider: r.provider(), Model: r.req.Model, Object: object, Created: r.created}
}

// usage estimates tokens at four bytes each, deterministically, and
// charges the script's cost.
func (r *reply) usage(output int) *usage {
	zero := 0
	p := max(1, (len(r.body)+3)/4)
	c := max(1, (output+3)/4)
	cost := r.script.CostPerCall
	promptCost := cost * float64(p) / float64(p+c)
	return &usage{
		PromptTokens: p, CompletionTokens: c, TotalTokens: p + c, Cost: cost,
		PromptTokensDetails:     tokenDetails{CachedTokens: &zero, AudioTokens: &zero},
		CostDetails:             costDetails{UpstreamInferencePromptCost: promptCost, UpstreamInferenceCompletionsCost: cost - promptCost},
		CompletionTokensDetails: tokenDetails{ReasoningTokens: &zero, ImageTokens: &zero},
	}
}

func (r *reply) charge() {
	r.srv.mu.Lock()
	r.srv.usage += r.script.CostPerCall
	r.srv.mu.Unlock()
}

func (r *reply) write(w writer) {
	st := r.step
	switch st.kind {
	case stepError:
		writeError(w, st.status, st.text, nil)
		return
	case stepRateLimit:
		secs := int64(math.Ceil(st.after.Seconds()))
		h := w.Header()
		h.Set("Retry-After", strconv.FormatInt(secs, 10))
		h.Set("X-RateLimit-Limit", "20")
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(st.after).UnixMilli(), 10))
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("Rate limit exceeded: retry in %d s", secs), nil)
		return
	case stepMalformed:
		ct := "application/json"
		if r.req.Stream {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, st.raw)
		return
	}
	if r.req.Stream {
		r.stream(w)
	} else {
		r.whole(w)
	}
}

// whole writes a non-streamed completion.
func (r *reply) whole(w http.ResponseWriter) {
	st := r.step
	c := r.envelope("chat.completion")
	m := &message{Role: "assistant", Refusal: null, Reasoning: null}
	finish := "stop"
	output := 0
	switch st.kind {
	case stepAnswer:
		m.Content = jsonString(st.text)
		output = len(st.text)
	case stepRefuse:
		m.Content, m.Refusal = null, jsonString(st.text)
		output = len(st.text)
	case stepToolCalls:
		m.Content = jsonString("")
		finish = "tool_calls"
		for k, call := range st.calls {
			m.ToolCalls = append(m.ToolCalls, toolCall{ID: r.callID(k), Index: k, Type: "function", Function: functionCall{Name: call.Name, Arguments: call.RawArgs}})
			output += len(call.Name) + len(call.RawArgs)
		}
	case stepMidstream:
		m.Content = jsonString("")
		finish = "error"
		c.Error = r.midstreamError()
	}
	c.Choices = []choice{{FinishReason: strp(finish), NativeFinishReason: strp(finish), Message: m}}
	if st.kind != stepMidstream {
		c.Usage = r.usage(output)
		r.charge()
	}
	writeJSON(w, http.StatusOK, c)
}

func (r *reply) midstreamError() json.RawMessage {
	b, _ := json.Marshal(map[string]string{"code": r.step.code, "message": r.step.text})
	return b
}

// pieces splits s into fragments of at most n bytes on rune boundaries,
// as a model streams tokens; an empty s is one empty fragment.
func pieces(s string, n int) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	for len(s) > 0 {
		cut := min(n, len(s))
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

// stream writes the completion as OpenRouter streams it.
func (r *reply) stream(w writer) {
	st := r.step
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	emit := func(line string) bool {
		if _, err := io.WriteString(w, line+"\n\n"); err != nil {
			return false
		}
		w.Flush()
		return true
	}
	chunk := func(delta *message, finish string) bool {
		c := r.envelope("chat.completion.chunk")
		ch := choice{Index: 0, Delta: delta}
		if finish != "" {
			ch.FinishReason, ch.NativeFinishReason = strp(finish), strp(finish)
		}
		c.Choices = []choice{ch}
		b, _ := json.Marshal(c)
		return emit("data: " + string(b))
	}
	if !emit(Processing) {
		return
	}
	finish := "stop"
	output := 0
	switch st.kind {
	case stepAnswer:
		for _, p := range pieces(st.text, 8) {
			if !chunk(&message{Role: "assistant", Content: jsonString(p)}, "") {
				return
			}
		}
		output = len(st.text)
	case stepRefuse:
		for _, p := range pieces(st.text, 8) {
			if !chunk(&message{Role: "assistant", Content: null, Refusal: jsonString(p)}, "") {
				return
			}
		}
		output = len(st.text)
	case stepToolCalls:
		finish = "tool_calls"
		for k, call := range st.calls {
			first := toolCall{ID: r.callID(k), Index: k, Type: "function", Function: functionCall{Name: call.Name}}
			if !chunk(&message{Role: "assistant", Content: null, ToolCalls: []toolCall{first}}, "") {
				return
			}
			for _, p := range pieces(call.RawArgs, 6) {
				frag := toolCall{Index: k, Function: functionCall{Arguments: p}}
				if !chunk(&message{Role: "assistant", Content: null, ToolCalls: []toolCall{frag}}, "") {
					return
				}
			}
			output += len(call.Name) + len(call.RawArgs)
		}
	case stepMidstream:
		if !chunk(&message{Role: "assistant", Content: jsonString("")}, "") {
			return
		}
		c := r.envelope("chat.completion.chunk")
		c.Error = r.midstreamError()
		c.Choices = []choice{{Delta: &message{Content: jsonString("")}, FinishReason: strp("error"), NativeFinishReason: strp("error")}}
		b, _ := json.Marshal(c)
		emit("data: " + string(b))
		return
	}
	if !chunk(&message{Role: "assistant", Content: jsonString("")}, finish) {
		return
	}
	c := r.envelope("chat.completion.chunk")
	c.Choices = []choice{}
	c.Usage = r.usage(output)
	b, _ := json.Marshal(c)
	r.charge()
	if !emit("data: " + string(b)) {
		return
	}
	emit("data: [DONE]")
}
