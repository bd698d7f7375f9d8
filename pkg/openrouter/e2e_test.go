package openrouter_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/proxy"
)

var openTool = openrouter.FunctionTool("open", "Open a web page", json.RawMessage(
	`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`))

// urlFromLastToolResult is a scripted model step that "reads" the last tool
// result and answers with the URL it found there.
func urlFromLastToolResult(r *openroutertest.ChatRequest) openroutertest.Step {
	m, ok := r.LastToolResult()
	if !ok {
		return openroutertest.Answer("no tool result")
	}
	_, url, _ := strings.Cut(m.Text(), "link: ")
	return openroutertest.Answer("The page links to " + url)
}

// conversation runs a two-turn tool loop: the model calls open, the tool
// result goes back, the model answers. Streaming or not, the client's wire
// format must satisfy the server's validation on both turns.
func conversation(t *testing.T, c *openrouter.Client, model string, stream bool) (*openrouter.Response, []openrouter.Delta, float64) {
	t.Helper()
	ctx := context.Background()
	var deltas []openrouter.Delta
	send := func(req openrouter.Request) *openrouter.Response {
		t.Helper()
		var r *openrouter.Response
		var err error
		if stream {
			r, err = c.ChatStream(ctx, req, func(d openrouter.Delta) error { deltas = append(deltas, d); return nil })
		} else {
			r, err = c.Chat(ctx, req)
		}
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		return r
	}
	req := openrouter.Request{
		Model:    model,
		Messages: []openrouter.Message{{Role: openrouter.RoleSystem, Content: "Use the tools."}, {Role: openrouter.RoleUser, Content: "What does example.org link to?"}},
		Tools:    []openrouter.Tool{openTool},
	}
	first := send(req)
	msg := first.Message()
	if first.Choices[0].FinishReason != openrouter.FinishToolCalls || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "open" {
		t.Fatalf("first turn: %+v", first)
	}
	var args struct{ URL string }
	if err := msg.ToolCalls[0].Function.DecodeArguments(&args); err != nil || args.URL != "https://example.org" {
		t.Fatalf("arguments %q: %v", msg.ToolCalls[0].Function.Arguments, err)
	}
	req.Messages = append(req.Messages, msg, openrouter.Message{Role: openrouter.RoleTool, ToolCallID: msg.ToolCalls[0].ID, Content: "Example Domain. link: https://www.iana.org/help/example-domains"})
	second := send(req)
	if got := second.Message().Content; got != "The page links to https://www.iana.org/help/example-domains" {
		t.Fatalf("second turn answered %q", got)
	}
	c1, ok1 := first.Cost()
	c2, ok2 := second.Cost()
	if !ok1 || !ok2 {
		t.Fatal("cost missing")
	}
	return second, deltas, c1 + c2
}

func script(model string) openroutertest.Script {
	return openroutertest.Script{Model: model, CostPerCall: 0.0012, Steps: []openroutertest.Step{
		openroutertest.ToolCall("open", map[string]string{"url": "https://example.org"}),
		openroutertest.Func(urlFromLastToolResult),
	}}
}

// TestAgainstWireServer drives the client against openroutertest directly.
func TestAgainstWireServer(t *testing.T) {
	for _, stream := range []bool{false, true} {
		srv := openroutertest.New(t, openroutertest.WithScript(script("x/y")))
		c, err := openrouter.New(srv.Key, openrouter.WithBaseURL(srv.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
		if err != nil {
			t.Fatal(err)
		}
		_, deltas, cost := conversation(t, c, "x/y", stream)
		if cost != 0.0024 {
			t.Errorf("stream=%v: cost %v", stream, cost)
		}
		if stream && len(deltas) < 6 {
			t.Errorf("only %d deltas", len(deltas))
		}
		// The server saw the assistant's tool call come back with content
		// null and the tool result pointing at it.
		reqs := srv.ChatRequests("x/y")
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		back := reqs[1].Messages[2]
		if back.Role != "assistant" || string(back.Content) != "null" || len(back.ToolCalls) != 1 || reqs[1].Messages[3].ToolCallID != back.ToolCalls[0].ID {
			t.Errorf("second request messages: %+v", reqs[1].Messages)
		}
		if reqs[0].Stream != stream {
			t.Errorf("stream flag %v", reqs[0].Stream)
		}
		if _, sent := reqs[0].Members["usage"]; sent {
			t.Error("the deprecated usage parameter was sent")
		}
	}
}

// browser plays the part of the page's fetch: it adds what a browser adds
// on a same-origin request (Origin on POST, Sec-Fetch-Site, a User-Agent),
// which the client itself never sets and the proxy must drop.
type browser struct {
	origin string
	next   http.RoundTripper
}

func (b browser) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if r.Method == http.MethodPost {
		r.Header.Set("Origin", b.origin)
	}
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("User-Agent", "Mozilla/5.0 (test browser)")
	r.Header.Set("Cookie", "session=not-for-openrouter")
	return b.next.RoundTrip(r)
}

// TestThroughProxy runs the client against package proxy's handler, whose
// upstream is openroutertest: the path the browser build takes.
func TestThroughProxy(t *testing.T) {
	or := openroutertest.New(t, openroutertest.WithScript(
		script("x/y"),
		openroutertest.Script{Model: "x/stream", CostPerCall: 0.0012, Steps: script("").Steps},
		openroutertest.Script{Model: "x/fail", Steps: []openroutertest.Step{
			openroutertest.Error(402, "Insufficient credits"),
			openroutertest.RateLimit(2 * time.Second),
			openroutertest.MidstreamError("server_error", "Provider disconnected"),
			openroutertest.ToolCallRaw("open", `{"url": "https://exa`),
		}},
	))
	site := httptest.NewUnstartedServer(nil)
	origin := "http://" + site.Listener.Addr().String()
	h, err := proxy.New(proxy.Config{AllowedOrigin: origin, Upstream: or.APIBase(), Doer: proxy.NewHTTPDoer()})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(proxy.MountPath, h)
	site.Config.Handler = mux
	site.Start()
	t.Cleanup(site.Close)

	const referer = "https://workbench.example.org/teach"
	hc := &http.Client{Transport: browser{origin: origin, next: http.DefaultTransport}}
	c, err := openrouter.New(or.Key, openrouter.WithBaseURL(site.URL+openrouter.DefaultBaseURL), openrouter.WithHTTPClient(hc), openrouter.WithReferer(referer))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	info, err := c.Key(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Label, "sk-or-v1-") || info.Usage != 0 || info.Limit != nil {
		t.Errorf("key info %+v", info)
	}

	_, _, cost := conversation(t, c, "x/y", false)
	_, deltas, streamCost := conversation(t, c, "x/stream", true)
	if cost != 0.0024 || streamCost != 0.0024 || len(deltas) < 6 {
		t.Errorf("costs %v %v, %d deltas", cost, streamCost, len(deltas))
	}
	if info, err = c.Key(ctx); err != nil || info.Usage < 0.0048-1e-12 || info.Usage > 0.0048+1e-12 {
		t.Errorf("usage after four completions: %+v, %v", info, err)
	}

	// Failures arrive typed through the proxy.
	fail := openrouter.Request{Model: "x/fail", Messages: []openrouter.Message{{Role: openrouter.RoleUser, Content: "hi"}}, Tools: []openrouter.Tool{openTool}}
	if _, err := c.Chat(ctx, fail); !errors.Is(err, openrouter.ErrOutOfCredit) {
		t.Errorf("402: %v", err)
	}
	if _, err := c.ChatStream(ctx, fail, nil); !errors.Is(err, openrouter.ErrRateLimited) {
		t.Errorf("429: %v", err)
	} else if d, _ := openrouter.RetryAfter(err); d != 2*time.Second {
		t.Errorf("Retry-After through the proxy: %v", d)
	}
	var ae *openrouter.APIError
	if _, err := c.ChatStream(ctx, fail, nil); !errors.As(err, &ae) || !ae.Midstream || !errors.Is(err, openrouter.ErrUpstream) {
		t.Errorf("mid-stream: %v", err)
	}
	var me *openrouter.MalformedError
	if _, err := c.Chat(ctx, fail); !errors.As(err, &me) || me.Where != "/choices/0/message/tool_calls/0/function/arguments" || me.Usage == nil {
		t.Errorf("invalid arguments: %v", err)
	}

	// A wrong key is refused by the upstream, not the proxy.
	bad, _ := openrouter.New("sk-or-v1-wrong", openrouter.WithBaseURL(site.URL+openrouter.DefaultBaseURL), openrouter.WithHTTPClient(hc))
	if _, err := bad.Key(ctx); !errors.Is(err, openrouter.ErrBadKey) || !strings.Contains(err.Error(), "User not found") {
		t.Errorf("wrong key: %v", err)
	}
	// Without the browser's Origin the proxy refuses the POST itself.
	direct, _ := openrouter.New(or.Key, openrouter.WithBaseURL(site.URL+openrouter.DefaultBaseURL), openrouter.WithHTTPClient(http.DefaultClient))
	if _, err := direct.Chat(ctx, fail); !errors.As(err, &ae) || ae.Status != 403 || ae.Code != "origin_missing" {
		t.Errorf("no Origin: %v", err)
	}

	// What reached the upstream: the key byte for byte, the referer, and
	// nothing the browser added.
	reqs := or.Requests()
	if len(reqs) != 11 {
		t.Errorf("%d upstream requests, want 11", len(reqs))
	}
	for i, r := range reqs {
		if r.Path != "/api/v1"+r.Route {
			t.Errorf("request %d went to %s", i, r.Path)
		}
		wantKey := "Bearer " + or.Key
		if i == len(reqs)-1 {
			wantKey = "Bearer sk-or-v1-wrong"
		}
		if got := r.Header.Values("Authorization"); len(got) != 1 || got[0] != wantKey {
			t.Errorf("request %d: Authorization %q", i, got)
		}
		var names []string
		for k := range r.Header {
			names = append(names, k)
		}
		slices.Sort(names)
		want := []string{"Accept-Encoding", "Authorization", "Http-Referer"}
		if r.Method == http.MethodPost {
			want = []string{"Accept-Encoding", "Authorization", "Content-Length", "Content-Type", "Http-Referer"}
		}
		if i == len(reqs)-1 {
			want = slices.DeleteFunc(want, func(s string) bool { return s == "Http-Referer" })
		}
		if !slices.Equal(names, want) {
			t.Errorf("request %d (%s %s): upstream saw headers %v, want %v", i, r.Method, r.Route, names, want)
		}
		if i < len(reqs)-1 && r.Header.Get("Http-Referer") != referer {
			t.Errorf("request %d: referer %q", i, r.Header.Get("Http-Referer"))
		}
	}
}

// TestCutThroughProxy: a reply the upstream breaks off, whole or
// streamed, reaches the client through the proxy broken off too, and is
// a *CutError there, with nothing of it returned.
func TestCutThroughProxy(t *testing.T) {
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "x/cut", Steps: []openroutertest.Step{
		openroutertest.CutOff(openroutertest.ToolCall("open", map[string]any{"url": "https://example.org/"}), 60),
		openroutertest.CutOff(openroutertest.Answer("a streamed answer that breaks off"), 200),
	}}))
	site := httptest.NewUnstartedServer(nil)
	origin := "http://" + site.Listener.Addr().String()
	h, err := proxy.New(proxy.Config{AllowedOrigin: origin, Upstream: or.APIBase(), Doer: proxy.NewHTTPDoer()})
	if err != nil {
		t.Fatal(err)
	}
	site.Config.Handler = h
	site.Start()
	t.Cleanup(site.Close)
	c, err := openrouter.New(or.Key, openrouter.WithBaseURL(site.URL+openrouter.DefaultBaseURL),
		openrouter.WithHTTPClient(&http.Client{Transport: browser{origin: origin, next: http.DefaultTransport}}))
	if err != nil {
		t.Fatal(err)
	}
	req := openrouter.Request{Model: "x/cut", Messages: []openrouter.Message{{Role: openrouter.RoleUser, Content: "hi"}}, Tools: []openrouter.Tool{openTool}}
	var ce *openrouter.CutError
	if r, err := c.Chat(context.Background(), req); r != nil || !errors.As(err, &ce) || ce.Bytes != 60 {
		t.Errorf("Chat = %+v, %v; want a CutError after 60 bytes", r, err)
	} else {
		t.Log(err)
	}
	if r, err := c.ChatStream(context.Background(), req, nil); r != nil || !errors.As(err, &ce) || ce.Bytes != 200 {
		t.Errorf("ChatStream = %+v, %v; want a CutError after 200 bytes", r, err)
	} else {
		t.Log(err)
	}
}
