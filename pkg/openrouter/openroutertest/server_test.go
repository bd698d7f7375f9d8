package openroutertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// post sends body to path with the given Authorization (none when empty).
func post(t *testing.T, url, auth, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func get(t *testing.T, url, auth string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// errorBody decodes OpenRouter's error shape strictly: exactly
// {"error":{"code":<number>,"message":<string>[,"metadata":…]}}.
func errorBody(t *testing.T, b []byte) (int, string) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || len(top) != 1 || top["error"] == nil {
		t.Fatalf("not an OpenRouter error body: %s", b)
	}
	var e struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(top["error"], &e); err != nil || e.Code == nil || e.Message == nil {
		t.Fatalf("error object without a numeric code and a message: %s", b)
	}
	return *e.Code, *e.Message
}

const userOnly = `{"model":"x/y","messages":[{"role":"user","content":"hi"}]}`

func TestAuth(t *testing.T) {
	s := New(t, WithScript(Script{Model: "x/y", Steps: []Step{Answer("ok")}}))
	for _, tt := range []struct {
		name, auth, msg string
	}{
		{"missing", "", "No auth credentials found"},
		{"other key", "Bearer sk-or-v1-other", "User not found."},
		{"no Bearer", s.Key, "User not found."},
	} {
		for _, path := range []string{"/chat/completions", "/key"} {
			var resp *http.Response
			var b []byte
			if path == "/key" {
				resp, b = get(t, s.APIBase()+path, tt.auth)
			} else {
				resp, b = post(t, s.APIBase()+path, tt.auth, userOnly)
			}
			code, msg := errorBody(t, b)
			if resp.StatusCode != 401 || code != 401 || msg != tt.msg {
				t.Errorf("%s %s: %d %s", tt.name, path, resp.StatusCode, b)
			}
		}
	}
	if s.Remaining("x/y") != 1 {
		t.Error("an unauthorized request consumed a step")
	}
	resp, _ := post(t, s.APIBase()+"/chat/completions", "Bearer "+s.Key, userOnly)
	if resp.StatusCode != 200 {
		t.Errorf("with the key: %d", resp.StatusCode)
	}
}

func TestValidation(t *testing.T) {
	s := New(t, WithScript(Script{Model: "x/y", Steps: []Step{Answer("never")}}))
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"open","arguments":"{}"}}]}`
	tool := `{"type":"function","function":{"name":"open","parameters":{"type":"object"}}}`
	tests := []struct {
		name, body, msg string
	}{
		{"not JSON", `{`, "not a JSON object"},
		{"array", `[]`, "not a JSON object"},
		{"no messages", `{"model":"x/y"}`, "/messages"},
		{"empty messages", `{"model":"x/y","messages":[]}`, "/messages"},
		{"messages wrong type", `{"model":"x/y","messages":"hi"}`, "/messages"},
		{"unknown model", `{"model":"nobody/none","messages":[{"role":"user","content":"hi"}]}`, "nobody/none is not a valid model ID"},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, "/model"},
		{"no role", `{"model":"x/y","messages":[{"content":"hi"}]}`, "/messages/0/role"},
		{"bad role", `{"model":"x/y","messages":[{"role":"robot","content":"hi"}]}`, "/messages/0/role"},
		{"user without content", `{"model":"x/y","messages":[{"role":"user"}]}`, "/messages/0/content"},
		{"content a number", `{"model":"x/y","messages":[{"role":"user","content":5}]}`, "/messages/0/content"},
		{"part without type", `{"model":"x/y","messages":[{"role":"user","content":[{"text":"a"}]}]}`, "/messages/0/content/0/type"},
		{"assistant empty", `{"model":"x/y","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null}]}`, "/messages/1/content"},
		{"tool without id", `{"model":"x/y","messages":[{"role":"user","content":"a"},` + call + `,{"role":"tool","content":"r"}]}`, "/messages/2/tool_call_id"},
		{"tool answering nothing", `{"model":"x/y","messages":[{"role":"user","content":"a"},` + call + `,{"role":"tool","tool_call_id":"c9","content":"r"}]}`, "/messages/2/tool_call_id"},
		{"tool first", `{"model":"x/y","messages":[{"role":"tool","tool_call_id":"c1","content":"r"}]}`, "/messages/0/tool_call_id"},
		{"answered twice", `{"model":"x/y","messages":[{"role":"user","content":"a"},` + call + `,{"role":"tool","tool_call_id":"c1","content":"r"},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, "already answered"},
		{"call never answered", `{"model":"x/y","messages":[{"role":"user","content":"a"},` + call + `]}`, "never answered"},
		{"conversation moves on", `{"model":"x/y","messages":[{"role":"user","content":"a"},` + call + `,{"role":"user","content":"b"}]}`, "/messages/2"},
		{"tool without content", `{"model":"x/y","messages":[{"role":"user","content":"a"},` + call + `,{"role":"tool","tool_call_id":"c1"}]}`, "/messages/2/content"},
		{"arguments not a string", `{"model":"x/y","messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"open","arguments":{}}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, "/messages/1/tool_calls/0/function/arguments"},
		{"call type", `{"model":"x/y","messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"x","function":{"name":"open","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, "/messages/1/tool_calls/0/type"},
		{"tool type", `{"model":"x/y","messages":[{"role":"user","content":"a"}],"tools":[{"type":"x","function":{"name":"a"}}]}`, "/tools/0/type"},
		{"tool name", `{"model":"x/y","messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"open page"}}]}`, "/tools/0/function/name"},
		{"tool parameters", `{"model":"x/y","messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"a","parameters":"x"}}]}`, "/tools/0/function/parameters"},
		{"tool_choice unknown", `{"model":"x/y","messages":[{"role":"user","content":"a"}],"tools":[` + tool + `],"tool_choice":{"type":"function","function":{"name":"close"}}}`, "/tool_choice/function/name"},
		{"tool_choice required without tools", `{"model":"x/y","messages":[{"role":"user","content":"a"}],"tool_choice":"required"}`, "/tool_choice"},
		{"tool_choice bad mode", `{"model":"x/y","messages":[{"role":"user","content":"a"}],"tool_choice":"always"}`, "/tool_choice"},
		{"stream not a boolean", `{"model":"x/y","stream":"yes","messages":[{"role":"user","content":"a"}]}`, "/stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, b := post(t, s.URL+"/chat/completions", "Bearer "+s.Key, tt.body)
			code, msg := errorBody(t, b)
			if resp.StatusCode != 400 || code != 400 || !strings.Contains(msg, tt.msg) {
				t.Errorf("%d %s; want 400 mentioning %q", resp.StatusCode, b, tt.msg)
			}
		})
	}
	if s.Remaining("x/y") != 1 {
		t.Error("an invalid request consumed a step")
	}
	// The same conversation, well-formed, is accepted.
	ok := `{"model":"x/y","tools":[` + tool + `],"tool_choice":"auto","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a"}]},` + call + `,{"role":"tool","tool_call_id":"c1","content":"r"}]}`
	if resp, b := post(t, s.URL+"/chat/completions", "Bearer "+s.Key, ok); resp.StatusCode != 200 {
		t.Errorf("valid request: %d %s", resp.StatusCode, b)
	}
}

var (
	genID  = regexp.MustCompile(`^gen-\d+-[A-Za-z0-9]{20}$`)
	callID = regexp.MustCompile(`^call_[A-Za-z0-9]{24}$`)
)

// TestCompletionShape checks a non-streamed reply member by member.
func TestCompletionShape(t *testing.T) {
	s := New(t, WithScript(Script{Model: "x/y", CostPerCall: 0.0012, Provider: "OpenAI", Steps: []Step{
		ToolCall("open", map[string]string{"url": "https://example.org"}),
		Answer("Done."),
		Refuse("I won't."),
	}}))
	before := time.Now().Unix()
	var finishes []string
	for i := range 3 {
		resp, b := post(t, s.APIBase()+"/chat/completions", "Bearer "+s.Key, userOnly)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("reply %d: %d %s", i, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var c struct {
			ID       string `json:"id"`
			Provider string `json:"provider"`
			Model    string `json:"model"`
			Object   string `json:"object"`
			Created  int64  `json:"created"`
			Choices  []struct {
				Index        int             `json:"index"`
				FinishReason string          `json:"finish_reason"`
				Native       string          `json:"native_finish_reason"`
				Message      json.RawMessage `json:"message"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		if !genID.MatchString(c.ID) || c.Provider != "OpenAI" || c.Model != "x/y" || c.Object != "chat.completion" || c.Created < before || len(c.Choices) != 1 {
			t.Errorf("reply %d envelope: %s", i, b)
		}
		finishes = append(finishes, c.Choices[0].FinishReason)
		if c.Usage["cost"] != 0.0012 || c.Usage["total_tokens"].(float64) != c.Usage["prompt_tokens"].(float64)+c.Usage["completion_tokens"].(float64) {
			t.Errorf("reply %d usage: %v", i, c.Usage)
		}
		var m map[string]any
		json.Unmarshal(c.Choices[0].Message, &m)
		switch i {
		case 0:
			calls := m["tool_calls"].([]any)
			tc := calls[0].(map[string]any)
			fn := tc["function"].(map[string]any)
			if !callID.MatchString(tc["id"].(string)) || tc["type"] != "function" || fn["name"] != "open" || fn["arguments"] != `{"url":"https://example.org"}` {
				t.Errorf("tool call: %s", c.Choices[0].Message)
			}
		case 1:
			if m["role"] != "assistant" || m["content"] != "Done." || m["refusal"] != nil {
				t.Errorf("answer: %s", c.Choices[0].Message)
			}
		case 2:
			if m["content"] != nil || m["refusal"] != "I won't." {
				t.Errorf("refusal: %s", c.Choices[0].Message)
			}
		}
	}
	if !reflect.DeepEqual(finishes, []string{"tool_calls", "stop", "stop"}) {
		t.Errorf("finish reasons %v", finishes)
	}
	if u := s.Usage(); u < 0.0036-1e-12 || u > 0.0036+1e-12 {
		t.Errorf("Usage = %v, want 0.0036", u)
	}
}

// sseEvents reads a stream body into its comment and data lines, checking
// that every event is one line followed by a blank line.
func sseEvents(t *testing.T, body []byte) (comments, data []string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines)%2 != 0 {
		t.Fatalf("odd number of lines: %q", lines)
	}
	for i := 0; i < len(lines); i += 2 {
		if lines[i+1] != "" {
			t.Fatalf("event %d not followed by a blank line: %q", i/2, lines[i:i+2])
		}
		switch l := lines[i]; {
		case strings.HasPrefix(l, ":"):
			comments = append(comments, l)
		case strings.HasPrefix(l, "data: "):
			data = append(data, strings.TrimPrefix(l, "data: "))
		default:
			t.Fatalf("unexpected line %q", l)
		}
	}
	return comments, data
}

func TestStreamShape(t *testing.T) {
	s := New(t, WithScript(Script{Model: "x/y", CostPerCall: 0.5, Steps: []Step{
		Answer("Hello, wörld — a longer answer."),
		ToolCalls(Call{Name: "open", Args: map[string]string{"url": "https://example.org/a"}}, Call{Name: "read", RawArgs: `{"path":"/x"}`}),
		MidstreamError("server_error", "Provider disconnected"),
	}}))
	body := `{"model":"x/y","stream":true,"messages":[{"role":"user","content":"hi"}]}`

	// Answer: text in pieces, a finishing chunk, usage with no choices, [DONE].
	resp, b := post(t, s.APIBase()+"/chat/completions", "Bearer "+s.Key, body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	comments, data := sseEvents(t, b)
	if len(comments) != 1 || comments[0] != Processing || data[len(data)-1] != "[DONE]" {
		t.Fatalf("comments %q, last %q", comments, data[len(data)-1])
	}
	var text strings.Builder
	var id string
	for i, d := range data[:len(data)-1] {
		var c struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					Role    string  `json:"role"`
					Content *string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk %d: %v: %s", i, err, d)
		}
		if id == "" {
			id = c.ID
		}
		if c.ID != id || !genID.MatchString(id) || c.Object != "chat.completion.chunk" {
			t.Errorf("chunk %d envelope: %s", i, d)
		}
		last := i == len(data)-2
		if last {
			if len(c.Choices) != 0 || c.Usage["cost"] != 0.5 {
				t.Errorf("last chunk: %s", d)
			}
			continue
		}
		if c.Usage != nil || len(c.Choices) != 1 || c.Choices[0].Delta.Role != "assistant" {
			t.Errorf("chunk %d: %s", i, d)
		}
		if c.Choices[0].Delta.Content != nil {
			text.WriteString(*c.Choices[0].Delta.Content)
		}
		if fin := c.Choices[0].FinishReason; (fin != nil) != (i == len(data)-3) || (fin != nil && *fin != "stop") {
			t.Errorf("chunk %d finish_reason: %s", i, d)
		}
	}
	if text.String() != "Hello, wörld — a longer answer." || len(data) < 6 {
		t.Errorf("text %q in %d events", text.String(), len(data))
	}

	// Tool calls: a first fragment with id and name, then argument pieces.
	_, b = post(t, s.APIBase()+"/chat/completions", "Bearer "+s.Key, body)
	_, data = sseEvents(t, b)
	args := map[int]string{}
	names := map[int]string{}
	for _, d := range data[:len(data)-1] {
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		json.Unmarshal([]byte(d), &c)
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.ID != "" && !callID.MatchString(tc.ID) {
					t.Errorf("call id %q", tc.ID)
				}
				names[tc.Index] += tc.Function.Name
				args[tc.Index] += tc.Function.Arguments
			}
		}
	}
	if names[0] != "open" || names[1] != "read" || args[0] != `{"url":"https://example.org/a"}` || args[1] != `{"path":"/x"}` {
		t.Errorf("reassembled %v %v", names, args)
	}

	// A mid-stream error: 200, an error chunk, no [DONE].
	resp, b = post(t, s.APIBase()+"/chat/completions", "Bearer "+s.Key, body)
	_, data = sseEvents(t, b)
	if resp.StatusCode != 200 || !strings.Contains(data[len(data)-1], `"error":{"code":"server_error","message":"Provider disconnected"}`) ||
		!strings.Contains(data[len(data)-1], `"finish_reason":"error"`) {
		t.Errorf("mid-stream error: %q", data)
	}
	if u := s.Usage(); u != 1.0 {
		t.Errorf("Usage = %v, want two completions at 0.5", u)
	}
}

func TestErrorSteps(t *testing.T) {
	s := New(t, WithScript(Script{Model: "x/y", Steps: []Step{
		Error(402, "Insufficient credits"),
		RateLimit(1500 * time.Millisecond),
		Error(503, "No endpoints available"),
		Malformed(`{"id":"gen-x","choices":`),
	}}))
	for i, want := range []struct {
		status int
		msg    string
	}{{402, "Insufficient credits"}, {429, "Rate limit exceeded"}, {503, "No endpoints available"}} {
		resp, b := post(t, s.URL+"/chat/completions", "Bearer "+s.Key, userOnly)
		code, msg := errorBody(t, b)
		if resp.StatusCode != want.status || code != want.status || !strings.Contains(msg, want.msg) {
			t.Errorf("step %d: %d %s", i, resp.StatusCode, b)
		}
		if want.status == 429 && (resp.Header.Get("Retry-After") != "2" || resp.Header.Get("X-RateLimit-Remaining") != "0") {
			t.Errorf("429 headers: %v", resp.Header)
		}
	}
	_, b := post(t, s.URL+"/chat/completions", "Bearer "+s.Key, userOnly)
	if string(b) != `{"id":"gen-x","choices":` {
		t.Errorf("malformed step body %q", b)
	}
	if s.Usage() != 0 {
		t.Errorf("errors cost %v", s.Usage())
	}
}

// TestFuncStep lets the reply depend on the request: the model "reads"
// the last tool result.
func TestFuncStep(t *testing.T) {
	s := New(t, WithScript(Script{Model: "x/y", Steps: []Step{
		Func(func(r *ChatRequest) Step {
			m, ok := r.LastToolResult()
			if !ok {
				return Answer("no tool result")
			}
			return ToolCall("open", map[string]string{"url": strings.TrimPrefix(m.Text(), "next: ")})
		}),
	}}))
	body := `{"model":"x/y","messages":[{"role":"user","content":"go"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"look","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"next: https://example.org/new"}]}`
	_, b := post(t, s.URL+"/chat/completions", "Bearer "+s.Key, body)
	if !strings.Contains(string(b), `"arguments":"{\"url\":\"https://example.org/new\"}"`) {
		t.Errorf("reply %s", b)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Step == nil || !strings.HasPrefix(reqs[0].Step.String(), "ToolCalls(open") || reqs[0].Chat == nil {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestRoutesAndRecording(t *testing.T) {
	s := New(t, WithLimit(1), WithFreeTier(), WithScript(
		Script{Model: "a/one", CostPerCall: 0.6, Steps: []Step{Answer("1"), Answer("2"), Answer("3")}},
		Script{Model: "b/two", Steps: []Step{Answer("b")}},
	))
	auth := "Bearer " + s.Key
	// Both mounts, in step order per model.
	for i, base := range []string{s.URL, s.APIBase()} {
		resp, b := post(t, base+"/chat/completions", auth, `{"model":"a/one","messages":[{"role":"user","content":"q"}]}`)
		if resp.StatusCode != 200 || !strings.Contains(string(b), fmt.Sprintf(`"content":"%d"`, i+1)) {
			t.Errorf("mount %q: %d %s", base, resp.StatusCode, b)
		}
	}
	// Over the limit: 402, and the step is not consumed.
	resp, b := post(t, s.URL+"/chat/completions", auth, `{"model":"a/one","messages":[{"role":"user","content":"q"}]}`)
	if code, _ := errorBody(t, b); resp.StatusCode != 402 || code != 402 || s.Remaining("a/one") != 1 {
		t.Errorf("over the limit: %d %s", resp.StatusCode, b)
	}
	resp, b = get(t, s.APIBase()+"/key", auth)
	var k struct {
		Data map[string]any `json:"data"`
	}
	json.Unmarshal(b, &k)
	if resp.StatusCode != 200 || k.Data["limit"] != 1.0 || k.Data["usage"].(float64) < 1.19 || k.Data["limit_remaining"] != 0.0 || k.Data["is_free_tier"] != true ||
		!strings.HasPrefix(k.Data["label"].(string), "sk-or-v1-") || strings.Contains(string(b), s.Key) {
		t.Errorf("/key: %s", b)
	}
	resp, b = get(t, s.URL+"/models", "")
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"id":"a/one"`) || !strings.Contains(string(b), `"id":"b/two"`) {
		t.Errorf("/models: %d %s", resp.StatusCode, b)
	}
	resp, b = get(t, s.URL+"/api/v2/key", auth)
	if code, _ := errorBody(t, b); resp.StatusCode != 404 || code != 404 {
		t.Errorf("unknown route: %d %s", resp.StatusCode, b)
	}
	resp, b = get(t, s.URL+"/chat/completions", auth)
	if code, _ := errorBody(t, b); resp.StatusCode != 405 || code != 405 {
		t.Errorf("GET completions: %d %s", resp.StatusCode, b)
	}

	reqs := s.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	r0 := reqs[0]
	if r0.Method != "POST" || r0.Path != "/chat/completions" || r0.Route != "/chat/completions" || r0.Header.Get("Authorization") != auth ||
		!strings.Contains(string(r0.Body), `"model":"a/one"`) || r0.Status != 200 || r0.Chat == nil || r0.Chat.Model != "a/one" {
		t.Errorf("first request %+v", r0)
	}
	if reqs[1].Path != "/api/v1/chat/completions" || reqs[1].Route != "/chat/completions" {
		t.Errorf("second request %+v", reqs[1])
	}
	if n := len(s.ChatRequests("a/one")); n != 3 {
		t.Errorf("ChatRequests(a/one) = %d", n)
	}
}

// TestScriptExhausted uses Start, which collects problems instead of
// failing the test.
func TestScriptExhausted(t *testing.T) {
	s := Start(WithScript(Script{Model: "x/y", Steps: []Step{Answer("only")}}))
	defer s.Close()
	post(t, s.URL+"/chat/completions", "Bearer "+s.Key, userOnly)
	resp, b := post(t, s.URL+"/chat/completions", "Bearer "+s.Key, userOnly)
	if code, msg := errorBody(t, b); resp.StatusCode != 500 || code != 500 || !strings.Contains(msg, "only 1 steps") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0], "request 2") {
		t.Errorf("problems %q", p)
	}
}

func TestPieces(t *testing.T) {
	for _, s := range []string{"", "a", "exactly8", "héllo wörld ✓✓✓", strings.Repeat("界", 10)} {
		ps := pieces(s, 4)
		if strings.Join(ps, "") != s {
			t.Errorf("pieces(%q) = %q", s, ps)
		}
		for _, p := range ps {
			if !utf8.ValidString(p) {
				t.Errorf("piece %q of %q splits a rune", p, s)
			}
		}
	}
}

// TestCutOff: a CutOff step is its reply in the same wire format, broken
// off after the bytes kept: a whole completion still declares its whole
// Content-Length, a stream lacks its last chunk; either way the client's
// read of the body fails after exactly those bytes.
func TestCutOff(t *testing.T) {
	srv := New(t, WithScript(Script{Model: "x/y", Steps: []Step{
		CutOff(Answer("a reply that will not arrive whole"), 40),
		CutOff(Answer("a streamed reply that will not arrive whole"), 100),
	}}))
	for i, body := range []string{userOnly, `{"model":"x/y","stream":true,"messages":[{"role":"user","content":"hi"}]}`} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+srv.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		keep := []int{40, 100}[i]
		if resp.StatusCode != 200 || err == nil || len(b) != keep {
			t.Errorf("reply %d: %d, %d bytes, read error %v; want 200 and the read failing after %d bytes", i+1, resp.StatusCode, len(b), err, keep)
		}
		switch i {
		case 0:
			if resp.ContentLength <= int64(keep) || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("whole reply: Content-Length %d, Content-Type %q; want the whole body's length declared", resp.ContentLength, resp.Header.Get("Content-Type"))
			}
		case 1:
			if resp.ContentLength != -1 || !strings.HasPrefix(string(b), Processing) {
				t.Errorf("stream: Content-Length %d, body %.60q; want chunked, starting as a stream does", resp.ContentLength, b)
			}
		}
	}
	if got := srv.Requests(); len(got) != 2 || got[0].Step == nil || !strings.HasPrefix(got[0].Step.String(), "CutOff(Answer(") {
		t.Errorf("recorded %+v", got)
	}
}
