package openrouter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// testKey is distinctive so that a leak is found by substring search.
const testKey = "sk-or-v1-0000TESTKEY1111deadbeefcafe2222"

// fixed is the clock the tests pin the client to.
var fixed = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// server starts h on loopback and returns a client for it whose clock is
// fixed and whose sleeps are recorded instead of slept. The client sends
// through net/http: under js/wasm the package's default is fetch, and
// there (under Node.js) httptest listens on Go's in-process network, which
// only net/http reaches.
func server(t *testing.T, h http.HandlerFunc, opts ...Option) (*Client, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(testKey, append([]Option{WithBaseURL(srv.URL + "/api/v1"), WithHTTPClient(http.DefaultClient)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var slept []time.Duration
	c.now = func() time.Time { return fixed }
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		slept = append(slept, d)
		mu.Unlock()
		return ctx.Err()
	}
	return c, &slept
}

func respond(status int, header map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

var simpleRequest = Request{Model: "x/y", Messages: []Message{{Role: RoleUser, Content: "hi"}}}

const okBody = `{"id":"gen-1","provider":"P","model":"x/y","object":"chat.completion","created":1,
 "choices":[{"index":0,"finish_reason":"stop","native_finish_reason":"end_turn","message":{"role":"assistant","content":"hello","refusal":null}}],
 "usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"cost":0.0012}}`

// relativeBase is what New says about DefaultBaseURL: fine in a browser,
// an error natively.
var relativeBase = map[bool]string{true: "", false: "only a browser can resolve"}[runtime.GOOS == "js"]

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		key  string
		opts []Option
		want string // substring of the error; "" for success
	}{
		{"absolute base", testKey, []Option{WithBaseURL(OpenRouterAPI)}, ""},
		{"trailing slash", testKey, []Option{WithBaseURL(OpenRouterAPI + "/")}, ""},
		{"no key", "", []Option{WithBaseURL(OpenRouterAPI)}, "no API key"},
		{"key with newline", testKey + "\n", []Option{WithBaseURL(OpenRouterAPI)}, "at byte 40"},
		{"key with comma", "sk,x", []Option{WithBaseURL(OpenRouterAPI)}, "at byte 2"},
		{"relative base", testKey, nil, relativeBase},
		{"relative without slash", testKey, []Option{WithBaseURL("api/llm")}, "must start with /"},
		{"other scheme", testKey, []Option{WithBaseURL("ftp://example.org/api")}, "scheme must be http or https"},
		{"query", testKey, []Option{WithBaseURL("https://example.org/api?x=1")}, "without query"},
		{"referer with CR", testKey, []Option{WithBaseURL(OpenRouterAPI), WithReferer("https://a\r")}, "referer"},
		{"negative retry", testKey, []Option{WithBaseURL(OpenRouterAPI), WithRetry(RetryPolicy{MaxAttempts: 3, MaxWait: -1})}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.key, tt.opts...)
			if tt.want == "" {
				if err != nil || c == nil {
					t.Fatalf("New: %v", err)
				}
				if strings.HasSuffix(c.BaseURL(), "/") {
					t.Errorf("BaseURL %q keeps a trailing slash", c.BaseURL())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: err = %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q contains the key", err)
			}
		})
	}
	if _, err := New(""); !errors.Is(err, ErrNoKey) {
		t.Errorf("New(\"\") = %v, want ErrNoKey", err)
	}
}

// TestHeadersSent pins the exact header set on the wire. Besides the three
// the client sets, net/http adds Content-Length (with a body) and
// Accept-Encoding; it must add no User-Agent.
func TestHeadersSent(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	h := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, "/key"):
			respond(200, nil, `{"data":{"label":"l","limit":null,"usage":0,"is_free_tier":false}}`)(w, r)
		case strings.Contains(readBody(r), `"stream":true`):
			respond(200, map[string]string{"Content-Type": "text/event-stream"}, sseBody(
				`{"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`))(w, r)
		default:
			respond(200, nil, okBody)(w, r)
		}
	}
	for _, referer := range []string{"", "https://workbench.example.org/"} {
		var opts []Option
		if referer != "" {
			opts = append(opts, WithReferer(referer))
		}
		c, _ := server(t, h, opts...)
		got = nil
		ctx := context.Background()
		if _, err := c.Chat(ctx, simpleRequest); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ChatStream(ctx, simpleRequest, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Key(ctx); err != nil {
			t.Fatal(err)
		}
		post := []string{"Accept-Encoding", "Authorization", "Content-Length", "Content-Type"}
		get := []string{"Accept-Encoding", "Authorization"}
		if referer != "" {
			post = append(post, "Http-Referer")
			get = append(get, "Http-Referer")
		}
		slices.Sort(post)
		slices.Sort(get)
		for i, want := range [][]string{post, post, get} {
			var names []string
			for k := range got[i] {
				// Under Node.js, wasm's net/http falls back from fetch to
				// its own transport, which adds Go's User-Agent; in a
				// browser fetch adds none the page sets.
				if k == "User-Agent" && runtime.GOOS == "js" {
					continue
				}
				names = append(names, k)
			}
			slices.Sort(names)
			if !slices.Equal(names, want) {
				t.Errorf("referer %q, request %d: headers %v, want exactly %v", referer, i, names, want)
			}
			if a := got[i].Values("Authorization"); len(a) != 1 || a[0] != "Bearer "+testKey {
				t.Errorf("request %d: Authorization %q", i, a)
			}
			if referer != "" && got[i].Get("Http-Referer") != referer {
				t.Errorf("request %d: HTTP-Referer %q", i, got[i].Get("Http-Referer"))
			}
			if i < 2 && got[i].Get("Content-Type") != "application/json" {
				t.Errorf("request %d: Content-Type %q", i, got[i].Get("Content-Type"))
			}
		}
	}
}

func readBody(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

// sseBody frames each data payload as an event, with OpenRouter's
// keep-alive first and [DONE] last.
func sseBody(data ...string) string {
	var b strings.Builder
	b.WriteString(": OPENROUTER PROCESSING\n\n")
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func TestRequestBody(t *testing.T) {
	var body []byte
	c, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		respond(200, nil, okBody)(w, r)
	})
	temp := 0.0
	req := Request{
		Model: "x/y",
		Messages: []Message{
			{Role: RoleSystem, Content: "be brief"},
			{Role: RoleUser, Content: "open it"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_1", Type: "function", Function: FunctionCall{Name: "open", Arguments: `{"url":"u"}`}}}},
			{Role: RoleTool, ToolCallID: "call_1", Content: "page text"},
		},
		Tools:       []Tool{FunctionTool("open", "Open a page", json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}}}`))},
		ToolChoice:  ForceTool("open"),
		Temperature: &temp,
	}
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"model": "x/y",
		"messages": []any{
			map[string]any{"role": "system", "content": "be brief"},
			map[string]any{"role": "user", "content": "open it"},
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
				map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "open", "arguments": `{"url":"u"}`}},
			}},
			map[string]any{"role": "tool", "content": "page text", "tool_call_id": "call_1"},
		},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{
			"name": "open", "description": "Open a page",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string"}}},
		}}},
		"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "open"}},
		"temperature": 0.0,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("request body\n got %s\nwant %v", body, want)
	}
}

func TestRequestRefused(t *testing.T) {
	c, _ := server(t, func(w http.ResponseWriter, r *http.Request) { t.Error("a refused request reached the server") })
	user := Message{Role: RoleUser, Content: "hi"}
	call := Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}}
	tests := []struct {
		name  string
		req   Request
		field string
	}{
		{"no model", Request{Messages: []Message{user}}, "Model"},
		{"no messages", Request{Model: "x/y"}, "Messages"},
		{"bad role", Request{Model: "x/y", Messages: []Message{{Role: "robot"}}}, "Messages[0].Role"},
		{"tool without id", Request{Model: "x/y", Messages: []Message{user, {Role: RoleTool, Content: "r"}}}, "Messages[1].ToolCallID"},
		{"tool answering nothing", Request{Model: "x/y", Messages: []Message{user, call, {Role: RoleTool, ToolCallID: "c2", Content: "r"}}}, "Messages[2].ToolCallID"},
		{"call without id", Request{Model: "x/y", Messages: []Message{user, {Role: RoleAssistant, ToolCalls: []ToolCall{{Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}}}}, "Messages[1].ToolCalls[0].ID"},
		{"call with bad arguments", Request{Model: "x/y", Messages: []Message{user, {Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{"}}}}}}, "Messages[1].ToolCalls[0].Function.Arguments"},
		{"tool type", Request{Model: "x/y", Messages: []Message{user}, Tools: []Tool{{Type: "retrieval"}}}, "Tools[0].Type"},
		{"tool name", Request{Model: "x/y", Messages: []Message{user}, Tools: []Tool{FunctionTool("open page", "", nil)}}, "Tools[0].Function.Name"},
		{"tool twice", Request{Model: "x/y", Messages: []Message{user}, Tools: []Tool{FunctionTool("a", "", nil), FunctionTool("a", "", nil)}}, "Tools[1].Function.Name"},
		{"parameters not an object", Request{Model: "x/y", Messages: []Message{user}, Tools: []Tool{FunctionTool("a", "", json.RawMessage(`[1]`))}}, "Tools[0].Function.Parameters"},
		{"forced tool missing", Request{Model: "x/y", Messages: []Message{user}, ToolChoice: ForceTool("b")}, "ToolChoice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, call := range []func() error{
				func() error { _, err := c.Chat(context.Background(), tt.req); return err },
				func() error { _, err := c.ChatStream(context.Background(), tt.req, nil); return err },
			} {
				err := call()
				var re *RequestError
				if !errors.As(err, &re) || re.Field != tt.field {
					t.Fatalf("err = %v, want a RequestError on %s", err, tt.field)
				}
			}
		})
	}
}

func TestAPIErrors(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		is         error
		code       string
		message    string
		retryAfter time.Duration
		retryable  bool
	}{
		{"401 no credentials", 401, nil, `{"error":{"code":401,"message":"No auth credentials found"}}`, ErrBadKey, "401", "No auth credentials found", 0, false},
		{"401 unknown key", 401, nil, `{"error":{"code":401,"message":"User not found."}}`, ErrBadKey, "401", "User not found.", 0, false},
		{"402", 402, nil, `{"error":{"code":402,"message":"Insufficient credits","metadata":{"limit_source":"openrouter_credits"}}}`, ErrOutOfCredit, "402", "Insufficient credits", 0, false},
		{"403 moderation", 403, nil, `{"error":{"code":403,"message":"flagged","metadata":{"reasons":["x"]}}}`, nil, "403", "flagged", 0, false},
		{"403 from the proxy", 403, nil, `{"error":{"code":"origin_forbidden","message":"Origin refused"}}`, nil, "origin_forbidden", "Origin refused", 0, false},
		{"408", 408, nil, `{"error":{"code":408,"message":"timed out"}}`, nil, "408", "timed out", 0, true},
		{"429 seconds", 429, map[string]string{"Retry-After": "30"}, `{"error":{"code":429,"message":"Rate limit exceeded"}}`, ErrRateLimited, "429", "Rate limit exceeded", 30 * time.Second, true},
		{"429 date", 429, map[string]string{"Retry-After": fixed.Add(90 * time.Second).Format(http.TimeFormat)}, `{"error":{"code":429,"message":"slow down"}}`, ErrRateLimited, "429", "slow down", 90 * time.Second, true},
		{"429 without Retry-After", 429, nil, `{"error":{"code":429,"message":"slow down"}}`, ErrRateLimited, "429", "slow down", 0, true},
		{"500", 500, nil, `{"error":{"code":500,"message":"Internal Server Error"}}`, ErrUpstream, "500", "Internal Server Error", 0, false},
		{"502", 502, nil, `{"error":{"code":502,"message":"model down"}}`, ErrUpstream, "502", "model down", 0, true},
		{"503 with Retry-After", 503, map[string]string{"Retry-After": "5"}, `{"error":{"code":503,"message":"no provider"}}`, ErrUpstream, "503", "no provider", 5 * time.Second, true},
		{"502 HTML page", 502, map[string]string{"Content-Type": "text/html"}, "<html>Bad gateway</html>", ErrUpstream, "", "<html>Bad gateway</html>", 0, true},
		{"400 model", 400, nil, `{"error":{"code":400,"message":"x/y is not a valid model ID"}}`, nil, "400", "x/y is not a valid model ID", 0, false},
	}
	sentinels := []error{ErrBadKey, ErrOutOfCredit, ErrRateLimited, ErrUpstream}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := server(t, respond(tt.status, tt.header, tt.body))
			calls := map[string]func() error{
				"Chat":       func() error { _, err := c.Chat(context.Background(), simpleRequest); return err },
				"ChatStream": func() error { _, err := c.ChatStream(context.Background(), simpleRequest, nil); return err },
				"Key":        func() error { _, err := c.Key(context.Background()); return err },
			}
			for name, call := range calls {
				err := call()
				var ae *APIError
				if !errors.As(err, &ae) {
					t.Fatalf("%s: err = %v (%T), want *APIError", name, err, err)
				}
				if ae.Status != tt.status || ae.Code != tt.code || ae.Message != tt.message || ae.RetryAfter != tt.retryAfter || ae.Midstream {
					t.Errorf("%s: got %+v", name, *ae)
				}
				if ae.Retryable() != tt.retryable {
					t.Errorf("%s: Retryable = %v", name, ae.Retryable())
				}
				for _, s := range sentinels {
					if errors.Is(err, s) != (s == tt.is) {
						t.Errorf("%s: errors.Is(err, %v) = %v", name, s, errors.Is(err, s))
					}
				}
				if d, ok := RetryAfter(err); ok != (tt.retryAfter > 0) || d != tt.retryAfter {
					t.Errorf("%s: RetryAfter = %v, %v", name, d, ok)
				}
				if !strings.Contains(err.Error(), fmt.Sprint(tt.status)) {
					t.Errorf("%s: %q does not give the status", name, err)
				}
			}
		})
	}
}

func TestMidstreamErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		code string
		is   error
	}{
		{"top level, string code", `{"id":"gen-1","object":"chat.completion","error":{"code":"server_error","message":"Provider disconnected"},"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"error"}],"usage":{"cost":0.25}}`, "server_error", ErrUpstream},
		{"in the choice, numeric code", `{"id":"gen-1","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"error","error":{"code":429,"message":"provider rate limit"}}]}`, "429", ErrRateLimited},
		{"bare error object", `{"error":{"code":502,"message":"upstream"}}`, "502", ErrUpstream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := server(t, respond(200, nil, tt.body))
			_, err := c.Chat(context.Background(), simpleRequest)
			var ae *APIError
			if !errors.As(err, &ae) || !ae.Midstream || ae.Status != 200 || ae.Code != tt.code || ae.Retryable() {
				t.Fatalf("err = %#v", err)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
			if billed := ae.Usage != nil && *ae.Usage.Cost == 0.25; billed != strings.Contains(tt.body, `"cost":0.25`) {
				t.Errorf("usage %+v", ae.Usage)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	call := func(id, name, args string) string {
		return fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}`, id, name, args)
	}
	reply := func(calls ...string) string {
		return `{"id":"gen-1","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"","tool_calls":[` +
			strings.Join(calls, ",") + `]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"cost":0.5}}`
	}
	tests := []struct {
		name   string
		body   string
		where  string
		reason string
		cost   bool // whether MalformedError.Usage carries the cost
	}{
		{"not JSON", `<html>oops</html>`, "", "not a chat completion", false},
		{"JSON broken inside", `{"id":"gen-1","choices":[}`, "", "not a chat completion", false},
		{"choices wrong type", `{"choices":"none"}`, "/choices", "not a chat completion", false},
		{"no choices", `{"id":"gen-1","usage":{"cost":0.5}}`, "/choices", "no choices", true},
		{"empty choices", `{"id":"gen-1","choices":[],"usage":{"cost":0.5}}`, "/choices", "no choices", true},
		{"no message", `{"id":"gen-1","choices":[{"index":0}],"usage":{"cost":0.5}}`, "/choices/0/message", "missing", true},
		{"wrong role", `{"choices":[{"index":0,"message":{"role":"user","content":"x"}}],"usage":{"cost":0.5}}`, "/choices/0/message/role", "want assistant", true},
		{"call without id", reply(call("", "open", "{}")), "/choices/0/message/tool_calls/0/id", "missing", true},
		{"call without name", reply(call("c1", "", "{}")), "/choices/0/message/tool_calls/0/function/name", "missing", true},
		{"invalid JSON arguments", reply(call("c1", "open", "{}"), call("c2", "open", `{"url": "x`)), "/choices/0/message/tool_calls/1/function/arguments", "not valid JSON", true},
		{"arguments not an object", reply(call("c1", "open", `["x"]`)), "/choices/0/message/tool_calls/0/function/arguments", "not an object", true},
		{"wrong call type", reply(`{"id":"c1","type":"code","function":{"name":"f","arguments":"{}"}}`), "/choices/0/message/tool_calls/0/type", "want function", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := server(t, respond(200, nil, tt.body))
			_, err := c.Chat(context.Background(), simpleRequest)
			var me *MalformedError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v (%T), want *MalformedError", err, err)
			}
			if me.Where != tt.where || !strings.Contains(me.Reason, tt.reason) {
				t.Errorf("got where %q reason %q, want %q, %q", me.Where, me.Reason, tt.where, tt.reason)
			}
			if tt.where != "" && !strings.Contains(err.Error(), tt.where) {
				t.Errorf("%q does not say where", err)
			}
			if got := me.Usage != nil && me.Usage.Cost != nil && *me.Usage.Cost == 0.5; got != tt.cost {
				t.Errorf("cost carried = %v, want %v", got, tt.cost)
			}
		})
	}
}

func TestResponseAndCost(t *testing.T) {
	c, _ := server(t, respond(200, nil, okBody))
	r, err := c.Chat(context.Background(), simpleRequest)
	if err != nil {
		t.Fatal(err)
	}
	if cost, ok := r.Cost(); !ok || cost != 0.0012 {
		t.Errorf("Cost = %v, %v", cost, ok)
	}
	want := Response{ID: "gen-1", Model: "x/y", Provider: "P", Created: 1,
		Choices: []Choice{{Index: 0, Message: Message{Role: "assistant", Content: "hello"}, FinishReason: "stop", NativeFinishReason: "end_turn"}},
		Usage:   Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5, Cost: r.Usage.Cost}}
	if !reflect.DeepEqual(*r, want) {
		t.Errorf("got %+v\nwant %+v", *r, want)
	}

	// No cost reported: known to be unknown, not zero.
	c, _ = server(t, respond(200, nil, strings.Replace(okBody, `,"cost":0.0012`, "", 1)))
	r, err = c.Chat(context.Background(), simpleRequest)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Cost(); ok {
		t.Error("Cost reported although the reply had none")
	}

	// Empty arguments of a parameterless call become {}.
	c, _ = server(t, respond(200, nil, `{"id":"g","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"now","arguments":""}}]}}]}`))
	r, err = c.Chat(context.Background(), simpleRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Message().ToolCalls[0].Function.Arguments; got != "{}" {
		t.Errorf("arguments = %q, want {}", got)
	}
}

func TestKey(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    *KeyInfo
		where   string
		isError bool
	}{
		{"unlimited", `{"data":{"label":"sk-or-v1-abc...xyz","limit":null,"limit_remaining":null,"usage":0.25,"is_free_tier":true,"rate_limit":{"requests":-1,"interval":"10s"}}}`,
			&KeyInfo{Label: "sk-or-v1-abc...xyz", Usage: 0.25, IsFreeTier: true}, "", false},
		{"limited", `{"data":{"label":"k","limit":10,"limit_remaining":9.5,"limit_reset":"monthly","usage":0.5,"usage_daily":0.1,"is_free_tier":false}}`,
			&KeyInfo{Label: "k", Limit: ptr(10.0), LimitRemaining: ptr(9.5), LimitReset: "monthly", Usage: 0.5, UsageDaily: 0.1}, "", false},
		{"no data", `{"label":"k"}`, nil, "/data", true},
		{"no label", `{"data":{"usage":1}}`, nil, "/data/label", true},
		{"no usage", `{"data":{"label":"k"}}`, nil, "/data/usage", true},
		{"wrong type", `{"data":{"label":"k","usage":"lots"}}`, nil, "/data/usage", true},
		{"not JSON", `nope`, nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path string
			c, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				path = r.Method + " " + r.URL.Path
				respond(200, nil, tt.body)(w, r)
			})
			got, err := c.Key(context.Background())
			if path != "GET /api/v1/key" {
				t.Errorf("request went to %q", path)
			}
			if !tt.isError {
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("Key = %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			var me *MalformedError
			if !errors.As(err, &me) || me.Where != tt.where {
				t.Fatalf("err = %v, want a MalformedError at %q", err, tt.where)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"30", 30 * time.Second},
		{" 30 ", 30 * time.Second},
		{"120", 2 * time.Minute},
		{"-1", 0},
		{"1.5", 0},
		{"3s", 0},
		{"soon", 0},
		{"99999999999999999999999", maxRetryAfter},
		{"999999999", maxRetryAfter},
		{fixed.Add(45 * time.Second).Format(http.TimeFormat), 45 * time.Second},                      // IMF-fixdate
		{fixed.Add(45 * time.Second).Format(time.RFC850), 45 * time.Second},                          // obsolete RFC 850
		{fixed.Add(45 * time.Second).Format(time.ANSIC), 45 * time.Second},                           // asctime
		{fixed.Add(-time.Hour).Format(http.TimeFormat), 0},                                           // past
		{fixed.Add(1000 * time.Hour).Format(http.TimeFormat), maxRetryAfter},                         // far future
		{"Sun, 01 Mar 2026 12:00:45 PST", 0},                                                         // not GMT: not an HTTP date
		{fixed.Add(45*time.Second + 500*time.Millisecond).Format(http.TimeFormat), 45 * time.Second}, // whole seconds on the wire
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, fixed); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	// A date carries whole seconds; a clock between seconds rounds the
	// wait up rather than retrying early.
	if got := parseRetryAfter(fixed.Add(10*time.Second).Format(http.TimeFormat), fixed.Add(300*time.Millisecond)); got != 10*time.Second {
		t.Errorf("mid-second clock: %v, want 10s", got)
	}
}

// statusSequence answers the given statuses in turn, then okBody.
func statusSequence(t *testing.T, seq []int, retryAfter string) (http.HandlerFunc, *int) {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if i < len(seq) {
			h := map[string]string{}
			if retryAfter != "" {
				h["Retry-After"] = retryAfter
			}
			respond(seq[i], h, fmt.Sprintf(`{"error":{"code":%d,"message":"attempt %d"}}`, seq[i], i+1))(w, r)
			return
		}
		if strings.Contains(readBody(r), `"stream":true`) {
			respond(200, map[string]string{"Content-Type": "text/event-stream"}, sseBody(
				`{"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`))(w, r)
			return
		}
		respond(200, nil, okBody)(w, r)
	}, &n
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name       string
		policy     *RetryPolicy
		seq        []int
		retryAfter string
		ok         bool
		attempts   int
		slept      []time.Duration
	}{
		{"off by default", nil, []int{429}, "1", false, 1, nil},
		{"honours Retry-After", &RetryPolicy{MaxAttempts: 3, MaxWait: time.Minute}, []int{429, 429}, "2", true, 3, []time.Duration{2 * time.Second, 2 * time.Second}},
		{"bounded in attempts", &RetryPolicy{MaxAttempts: 2, MaxWait: time.Minute}, []int{429, 429}, "2", false, 2, []time.Duration{2 * time.Second}},
		{"bounded in total wait", &RetryPolicy{MaxAttempts: 5, MaxWait: 5 * time.Second}, []int{429, 429, 429}, "2", false, 3, []time.Duration{2 * time.Second, 2 * time.Second}},
		{"a wait beyond the bound is not started", &RetryPolicy{MaxAttempts: 5, MaxWait: 10 * time.Second}, []int{429}, "100", false, 1, nil},
		{"backoff doubles without Retry-After", &RetryPolicy{MaxAttempts: 4, MaxWait: time.Minute, Backoff: time.Second}, []int{503, 502, 408}, "", true, 4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{"402 is not retried", &RetryPolicy{MaxAttempts: 4, MaxWait: time.Minute}, []int{402}, "", false, 1, nil},
		{"401 is not retried", &RetryPolicy{MaxAttempts: 4, MaxWait: time.Minute}, []int{401}, "", false, 1, nil},
		{"500 is not retried", &RetryPolicy{MaxAttempts: 4, MaxWait: time.Minute}, []int{500}, "", false, 1, nil},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				h, n := statusSequence(t, tt.seq, tt.retryAfter)
				var opts []Option
				if tt.policy != nil {
					opts = append(opts, WithRetry(*tt.policy))
				}
				c, slept := server(t, h, opts...)
				var err error
				if stream {
					_, err = c.ChatStream(context.Background(), simpleRequest, nil)
				} else {
					_, err = c.Chat(context.Background(), simpleRequest)
				}
				if (err == nil) != tt.ok {
					t.Fatalf("err = %v, want ok=%v", err, tt.ok)
				}
				if *n != tt.attempts {
					t.Errorf("attempts = %d, want %d", *n, tt.attempts)
				}
				if !slices.Equal(*slept, tt.slept) {
					t.Errorf("slept %v, want %v", *slept, tt.slept)
				}
				if !tt.ok {
					var ae *APIError
					if !errors.As(err, &ae) || ae.Message != fmt.Sprintf("attempt %d", tt.attempts) {
						t.Errorf("err = %v, want the last attempt's APIError", err)
					}
				}
			})
		}
	}
}

// TestRetryWaitCancelled uses the real sleep: cancelling the context ends
// the wait and reports both the cancellation and the rate limit.
func TestRetryWaitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := respond(429, map[string]string{"Retry-After": "3600"}, `{"error":{"code":429,"message":"slow"}}`)
	c, _ := server(t, h, WithRetry(RetryPolicy{MaxAttempts: 2, MaxWait: 2 * time.Hour}))
	c.sleep = func(ctx context.Context, d time.Duration) error {
		cancel() // an hour's wait has just begun
		return sleepCtx(ctx, d)
	}
	_, err := c.Chat(ctx, simpleRequest)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v, want context.Canceled and ErrRateLimited", err)
	}
}

func TestStreamReassembly(t *testing.T) {
	// Two parallel tool calls whose fragments interleave, text before
	// them, OpenRouter's comments, CRLF line ends, a chunk spread over two
	// data lines, and usage in a last chunk with no choices.
	events := []string{
		`{"id":"gen-9","provider":"P","model":"x/y","object":"chat.completion.chunk","created":7,"choices":[{"index":0,"delta":{"role":"assistant","content":"Let me "},"finish_reason":null}]}`,
		`{"id":"gen-9","choices":[{"index":0,"delta":{"content":"look."}}]}`,
		`{"id":"gen-9","choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"open","arguments":""}}]}}]}`,
		`{"id":"gen-9","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read","arguments":"{\"pa"}}]}}]}`,
		"{\"id\":\"gen-9\",\n\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"url\\\":\"}}]}}]}",
		`{"id":"gen-9","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"https://e.org/ü\"}"}}]}}]}`,
		`{"id":"gen-9","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"th\":\"/a\"}"}}]}}]}`,
		`{"id":"gen-9","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"tool_calls","native_finish_reason":"tool_use"}]}`,
		`{"id":"gen-9","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"cost":0.0031}}`,
	}
	var b strings.Builder
	b.WriteString(": OPENROUTER PROCESSING\r\n\r\n")
	for i, e := range events {
		for _, line := range strings.Split(e, "\n") {
			b.WriteString("data: " + line + "\r\n")
		}
		b.WriteString("\r\n")
		if i == 3 {
			b.WriteString(": OPENROUTER PROCESSING\r\n\r\n")
		}
	}
	b.WriteString("data: [DONE]\r\n\r\n")
	c, _ := server(t, respond(200, map[string]string{"Content-Type": "text/event-stream; charset=utf-8"}, b.String()))

	var deltas []Delta
	r, err := c.ChatStream(context.Background(), simpleRequest, func(d Delta) error {
		deltas = append(deltas, d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cost := 0.0031
	want := &Response{ID: "gen-9", Model: "x/y", Provider: "P", Created: 7,
		Choices: []Choice{{Message: Message{Role: "assistant", Content: "Let me look.", ToolCalls: []ToolCall{
			{ID: "call_a", Type: "function", Function: FunctionCall{Name: "open", Arguments: `{"url":"https://e.org/ü"}`}},
			{ID: "call_b", Type: "function", Function: FunctionCall{Name: "read", Arguments: `{"path":"/a"}`}},
		}}, FinishReason: "tool_calls", NativeFinishReason: "tool_use"}},
		Usage: Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, Cost: &cost}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("response\n got %+v\nwant %+v", r, want)
	}
	wantDeltas := []Delta{
		{Content: "Let me "},
		{Content: "look."},
		{ToolCalls: []ToolCallDelta{{Index: 0, ID: "call_a", Name: "open"}}},
		{ToolCalls: []ToolCallDelta{{Index: 1, ID: "call_b", Name: "read", Arguments: `{"pa`}}},
		{ToolCalls: []ToolCallDelta{{Index: 0, Arguments: `{"url":`}}},
		{ToolCalls: []ToolCallDelta{{Index: 0, Arguments: `"https://e.org/ü"}`}}},
		{ToolCalls: []ToolCallDelta{{Index: 1, Arguments: `th":"/a"}`}}},
		{FinishReason: "tool_calls"},
		{Usage: &Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, Cost: &cost}},
	}
	if !reflect.DeepEqual(deltas, wantDeltas) {
		t.Errorf("deltas\n got %+v\nwant %+v", deltas, wantDeltas)
	}
}

func TestStreamFailures(t *testing.T) {
	chunk := func(delta string) string {
		return `{"id":"gen-1","choices":[{"index":0,"delta":` + delta + `}]}`
	}
	sse := map[string]string{"Content-Type": "text/event-stream"}
	tests := []struct {
		name    string
		status  int
		header  map[string]string
		body    string
		check   func(*testing.T, error)
		nDeltas int
	}{
		{"no [DONE]", 200, sse, "data: " + chunk(`{"role":"assistant","content":"par"}`) + "\n\n", cutAfter(1, "without data: [DONE]"), 1},
		{"connection ends mid-event", 200, sse, "data: " + chunk(`{"content":"a"}`) + "\n\ndata: {\"id\"", cutAfter(1, "without data: [DONE]"), 1},
		{"event over MaxEventBytes", 200, sse, "data: " + chunk(`{"content":"a"}`) + "\n\ndata: " + strings.Repeat("x", MaxEventBytes+1) + "\n\n", malformedAt("stream event 2", "over the size limit"), 1},
		{"data over MaxEventBytes in short lines", 200, sse, "data: " + chunk(`{"content":"a"}`) + "\n\n" + strings.Repeat("data: "+strings.Repeat("x", 1<<10)+"\n", MaxEventBytes>>10) + "\n", malformedAt("stream event 2", "over the size limit"), 1},
		{"chunk not JSON", 200, sse, sseBody(chunk(`{"content":"a"}`), `{"id":`), malformedAt("stream event 2", "not a chat completion chunk"), 1},
		{"fragment without index", 200, sse, sseBody(chunk(`{"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`)), malformedAt("stream event 1 /choices/0/delta/tool_calls/0/index", "missing"), 0},
		{"two ids at one index", 200, sse, sseBody(chunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f"}}]}`), chunk(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"f"}}]}`)), malformedAt("stream event 2 /choices/0/delta/tool_calls/0/id", "already belongs"), 1},
		{"reassembled arguments invalid", 200, sse, sseBody(chunk(`{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}`), chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"1"}}]}`)),
			malformedAt("/choices/0/message/tool_calls/0/function/arguments", "reassembled from the stream"), 2},
		{"no choices at all", 200, sse, sseBody(`{"id":"gen-1","choices":[],"usage":{"cost":0.1}}`), malformedAt("/choices", "no choices"), 1},
		{"mid-stream error", 200, sse, sseBody(chunk(`{"role":"assistant","content":"Half"}`),
			`{"id":"gen-1","object":"chat.completion.chunk","error":{"code":"server_error","message":"Provider disconnected"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`),
			func(t *testing.T, err error) {
				var ae *APIError
				if !errors.As(err, &ae) || !ae.Midstream || ae.Code != "server_error" || !errors.Is(err, ErrUpstream) {
					t.Errorf("err = %v, want a midstream APIError", err)
				}
			}, 1},
		{"429 before the stream", 429, map[string]string{"Retry-After": "7"}, `{"error":{"code":429,"message":"slow"}}`,
			func(t *testing.T, err error) {
				if d, ok := RetryAfter(err); !errors.Is(err, ErrRateLimited) || !ok || d != 7*time.Second {
					t.Errorf("err = %v, want ErrRateLimited after 7s", err)
				}
			}, 0},
		{"JSON error instead of a stream", 200, nil, `{"error":{"code":502,"message":"no provider"}}`,
			func(t *testing.T, err error) {
				if !errors.Is(err, ErrUpstream) {
					t.Errorf("err = %v, want ErrUpstream", err)
				}
			}, 0},
		{"JSON completion instead of a stream", 200, nil, okBody, malformedAt("", "not text/event-stream"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := server(t, respond(tt.status, tt.header, tt.body))
			n := 0
			r, err := c.ChatStream(context.Background(), simpleRequest, func(Delta) error { n++; return nil })
			if err == nil {
				t.Fatalf("no error; response %+v", r)
			}
			tt.check(t, err)
			if n != tt.nDeltas {
				t.Errorf("%d deltas delivered, want %d", n, tt.nDeltas)
			}
		})
	}
}

// cutAfter checks for a *CutError after events whole events, saying
// reason.
func cutAfter(events int, reason string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		if ce := cutOf(t, err, reason); ce.Events != events {
			t.Errorf("cut after %d events, want %d", ce.Events, events)
		}
	}
}

func malformedAt(where, reason string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var me *MalformedError
		if !errors.As(err, &me) {
			t.Fatalf("err = %v (%T), want *MalformedError", err, err)
		}
		if me.Where != where {
			t.Errorf("where %q, want %q", me.Where, where)
		}
		if !strings.Contains(me.Error(), reason) {
			t.Errorf("%q does not say %q", me.Error(), reason)
		}
	}
}

func TestStreamCallbackStops(t *testing.T) {
	body := sseBody(
		`{"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]}`,
		`{"id":"gen-1","choices":[{"index":0,"delta":{"content":"b"}}]}`,
	)
	c, _ := server(t, respond(200, map[string]string{"Content-Type": "text/event-stream"}, body))
	stop := errors.New("enough")
	n := 0
	_, err := c.ChatStream(context.Background(), simpleRequest, func(Delta) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err = %v after %d deltas, want the callback's error after 1", err, n)
	}
}

// TestStreamCancelled cancels the context while the server holds the
// stream open: the read ends with the context's error, and the server sees
// the request go away.
func TestStreamCancelled(t *testing.T) {
	gone := make(chan struct{})
	h := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": OPENROUTER PROCESSING\n\ndata: "+`{"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"first"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	}
	c, _ := server(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	_, err := c.ChatStream(ctx, simpleRequest, func(d Delta) error {
		got = append(got, d.Content)
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !slices.Equal(got, []string{"first"}) {
		t.Errorf("deltas %q", got)
	}
	<-gone
}

// TestKeyNeverInErrors provokes every error class from a server that
// echoes the Authorization header into everything it sends back, and
// checks that no error text, in any format, carries the key.
func TestKeyNeverInErrors(t *testing.T) {
	echo := func(status int, ct string, shape string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			a := r.Header.Get("Authorization")
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(status)
			fmt.Fprintf(w, shape, a, a, a)
		}
	}
	cases := map[string]http.HandlerFunc{
		"401":                echo(401, "application/json", `{"error":{"code":401,"message":"bad key %s","metadata":{"key":%q,"raw":"%s"}}}`),
		"402":                echo(402, "application/json", `{"error":{"code":"%s","message":"no credit for %s","metadata":{"k":"%s"}}}`),
		"429":                echo(429, "application/json", `{"error":{"code":429,"message":"%s %s %s"}}`),
		"502 not JSON":       echo(502, "text/plain", `upstream saw %s %s %s`),
		"malformed":          echo(200, "application/json", `{"id":"%s","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"%s%s"}}]}}]}`),
		"not JSON":           echo(200, "application/json", `%s %s %s`),
		"midstream":          echo(200, "application/json", `{"error":{"code":"%s","message":"%s","metadata":{"x":"%s"}}}`),
		"stream not JSON":    echo(200, "text/event-stream", "data: %s %s %s\n\n"),
		"stream no DONE":     echo(200, "text/event-stream", "data: {\"id\":\"%s\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s%s\"}}]}\n\n"),
		"stream wrong type":  echo(200, "text/html", "<p>%s %s %s</p>"),
		"stream mid error":   echo(200, "text/event-stream", "data: {\"error\":{\"code\":\"%s\",\"message\":\"%s %s\"}}\n\n"),
		"key malformed":      echo(200, "application/json", `{"data":{"label":%q,"usage":"%s %s"}}`),
		"connection refused": nil,
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			var c *Client
			if h == nil {
				srv := httptest.NewServer(http.NotFoundHandler())
				base := srv.URL
				srv.Close()
				var err error
				if c, err = New(testKey, WithBaseURL(base+"/"+testKey), WithHTTPClient(http.DefaultClient)); err != nil {
					t.Fatal(err)
				}
			} else {
				c, _ = server(t, h)
			}
			errs := []error{}
			_, err := c.Chat(context.Background(), simpleRequest)
			errs = append(errs, err)
			_, err = c.ChatStream(context.Background(), simpleRequest, nil)
			errs = append(errs, err)
			_, err = c.Key(context.Background())
			errs = append(errs, err)
			for i, err := range errs {
				if err == nil {
					continue
				}
				for _, s := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%q", err)} {
					if strings.Contains(s, testKey) {
						t.Errorf("call %d: error text carries the key: %s", i, s)
					}
				}
				for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
					if strings.Contains(u.Error(), testKey) {
						t.Errorf("call %d: wrapped error carries the key: %s", i, u)
					}
				}
				var ae *APIError
				if errors.As(err, &ae) && strings.Contains(string(ae.Metadata), testKey) {
					t.Errorf("call %d: metadata carries the key", i)
				}
				var me *MalformedError
				if errors.As(err, &me) && me.Err != nil && strings.Contains(me.Err.Error(), testKey) {
					t.Errorf("call %d: decoding error carries the key", i)
				}
			}
			if errs[0] == nil && name != "stream not JSON" && name != "stream no DONE" && name != "stream wrong type" && name != "stream mid error" {
				t.Errorf("Chat gave no error")
			}
		})
	}

	c, err := New(testKey, WithBaseURL(OpenRouterAPI), WithReferer("https://w.example"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{c.String(), fmt.Sprint(c), fmt.Sprint(*c), fmt.Sprintf("%+v", c), fmt.Sprintf("%+v", *c), fmt.Sprintf("%#v", c), fmt.Sprintf("%#v", *c), fmt.Sprintf("%s %q %x", c, c, *c)} {
		if strings.Contains(s, testKey) || strings.Contains(s, "TESTKEY") {
			t.Errorf("formatting the client shows the key: %s", s)
		}
	}
}

func TestMessageJSON(t *testing.T) {
	tests := []struct {
		m    Message
		want string
	}{
		{Message{Role: RoleUser, Content: "hi"}, `{"role":"user","content":"hi"}`},
		{Message{Role: RoleUser, Content: ""}, `{"role":"user","content":""}`},
		{Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`},
		{Message{Role: RoleAssistant, Content: "and", ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}},
			`{"role":"assistant","content":"and","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`},
		{Message{Role: RoleTool, Content: "r", ToolCallID: "c", Name: "f"}, `{"role":"tool","content":"r","tool_call_id":"c","name":"f"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.m)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.m, b, err, tt.want)
		}
		var back Message
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, tt.m) {
			t.Errorf("round trip of %s = %+v, %v", b, back, err)
		}
	}
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":null,"refusal":"I can't"}`), &m); err != nil || m.Refusal != "I can't" || m.Content != "" {
		t.Errorf("refusal: %+v, %v", m, err)
	}
	for in, want := range map[string]ToolChoice{`"auto"`: ToolChoiceAuto, `"none"`: ToolChoiceNone, `"required"`: ToolChoiceRequired, `{"type":"function","function":{"name":"f"}}`: ForceTool("f")} {
		var c ToolChoice
		if err := json.Unmarshal([]byte(in), &c); err != nil || c != want {
			t.Errorf("ToolChoice %s = %v, %v", in, c, err)
		}
		b, _ := json.Marshal(want)
		if !jsonEqual(b, []byte(in)) {
			t.Errorf("ToolChoice %v marshals to %s, want %s", want, b, in)
		}
	}
	b, _ := json.Marshal(Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "x"}}})
	if strings.Contains(string(b), "tool_choice") || strings.Contains(string(b), "tools") {
		t.Errorf("zero ToolChoice and Tools are sent: %s", b)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
