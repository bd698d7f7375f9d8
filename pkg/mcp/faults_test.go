package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"workbench/internal/closedport"
	"workbench/pkg/mcp"
)

// rpc is one JSON-RPC message a fault server received.
type rpc struct {
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	Session string          `json:"-"`
}

// faultServer is a deliberately broken MCP server: it performs the
// handshake correctly and hands every other request to onRequest, which
// misbehaves as a test wants. Sessions are "s1", "s2", … and live until
// forgotten.
type faultServer struct {
	URL       string
	onRequest func(w http.ResponseWriter, r *http.Request, m rpc)
	onGET     func(w http.ResponseWriter, r *http.Request)
	// stateless, if set, answers every request as a 2026-07-28 server
	// would: the result it returns, no sessions.
	stateless func(m rpc) string

	mu       sync.Mutex
	sessions int
	live     map[string]bool
	got      []rpc
}

func newFaultServer(t *testing.T, onRequest func(w http.ResponseWriter, r *http.Request, m rpc)) *faultServer {
	return newFaultServerB(t, onRequest)
}

func newFaultServerB(t testing.TB, onRequest func(w http.ResponseWriter, r *http.Request, m rpc)) *faultServer {
	f := &faultServer{onRequest: onRequest, live: map[string]bool{}}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	f.URL = ts.URL + "/mcp"
	return f
}

func (f *faultServer) received() []rpc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]rpc(nil), f.got...)
}

func (f *faultServer) forget(session string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.live, session)
}

func (f *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	session := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodGet:
		if f.onGET != nil {
			f.onGET(w, r)
			return
		}
		http.Error(w, "no GET stream", http.StatusMethodNotAllowed)
		return
	case http.MethodDelete:
		f.forget(session)
		return
	}
	var m rpc
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.Session = session
	f.mu.Lock()
	f.got = append(f.got, m)
	if f.stateless != nil {
		f.mu.Unlock()
		writeJSON(w, m.ID, f.stateless(m))
		return
	}
	if m.Method == "initialize" {
		f.sessions++
		id := fmt.Sprintf("s%d", f.sessions)
		f.live[id] = true
		f.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
		writeJSON(w, m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fault","version":"0"}}`)
		return
	}
	live := f.live[session]
	f.mu.Unlock()
	if !live {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	if m.ID == nil || m.Method == "" { // a notification or a response
		w.WriteHeader(http.StatusAccepted)
		return
	}
	f.onRequest(w, r, m)
}

func writeJSON(w http.ResponseWriter, id json.RawMessage, result string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func sseHead(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
}

const okResult = `{"content":[{"type":"text","text":"ok"}]}`

// checkOneLine fails when err is nil or prints on several lines.
func checkOneLine(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if strings.ContainsAny(err.Error(), "\r\n") {
		t.Errorf("error is not one line: %q", err)
	}
	t.Logf("error: %v", err)
}

func TestUnreachable(t *testing.T) {
	url := "http://" + closedport.Addr(t) + "/mcp"
	_, err := mcp.Dial(context.Background(), url, testOptions(nil))
	checkOneLine(t, err)
	var ue *mcp.UnreachableError
	if !errors.As(err, &ue) || ue.URL != url || !strings.Contains(strings.ToLower(err.Error()), "connection refused") {
		t.Errorf("err = %v, want UnreachableError for %s", err, url)
	}
}

func TestBadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:3000/mcp", "ftp://x/mcp", "http:///mcp", "http://a b"} {
		if _, err := mcp.Dial(context.Background(), u, nil); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
			t.Errorf("Dial(%q) = %v", u, err)
		}
	}
}

func TestHTTPStatus(t *testing.T) {
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		http.Error(w, "upstream down;\n\tretry later", http.StatusServiceUnavailable)
	})
	c := dial(t, f.URL, nil)
	_, err := c.CallTool(context.Background(), "x", nil)
	checkOneLine(t, err)
	var he *mcp.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 || he.Body != "upstream down; retry later" || he.Op != `tools/call "x"` {
		t.Errorf("err = %#v", err)
	}
	if want := `mcp: tools/call "x": HTTP 503 Service Unavailable: upstream down; retry later`; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestHandshakeStatus(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, strings.Repeat("x", 1000), http.StatusInternalServerError)
	}))
	defer ts.Close()
	_, err := mcp.Dial(context.Background(), ts.URL, testOptions(nil))
	checkOneLine(t, err)
	var he *mcp.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 500 || he.Op != "initialize" || len([]rune(he.Body)) != 201 {
		t.Errorf("err = %v", err)
	}
}

// The server forgets the session between two calls: the client
// re-initializes and the call succeeds on the new session.
func TestSessionLostMidRun(t *testing.T) {
	var f *faultServer
	f = newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		writeJSON(w, m.ID, fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, m.Session))
	})
	c := dial(t, f.URL, nil)
	res, err := c.CallTool(context.Background(), "who", nil)
	if err != nil || res.Text() != "s1" {
		t.Fatalf("first call: %v %v", res, err)
	}
	f.forget("s1")
	res, err = c.CallTool(context.Background(), "who", nil)
	if err != nil || res.Text() != "s2" {
		t.Fatalf("after losing the session: %v %v", res, err)
	}
	var methods []string
	for _, m := range f.received() {
		methods = append(methods, m.Method+"@"+m.Session)
	}
	want := "initialize@,notifications/initialized@s1,tools/call@s1,tools/call@s1,initialize@,notifications/initialized@s2,tools/call@s2"
	if strings.Join(methods, ",") != want {
		t.Errorf("server saw %s\nwant        %s", strings.Join(methods, ","), want)
	}
}

// A server that forgets every session at its first call: one
// re-initialization, then a clear error.
func TestSessionExpiresAgain(t *testing.T) {
	var f *faultServer
	f = newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		f.forget(m.Session)
		http.Error(w, "session not found", http.StatusNotFound)
	})
	c := dial(t, f.URL, nil)
	_, err := c.CallTool(context.Background(), "x", nil)
	checkOneLine(t, err)
	var se *mcp.SessionExpiredError
	if !errors.As(err, &se) {
		t.Errorf("err = %v, want SessionExpiredError", err)
	}
	inits := 0
	for _, m := range f.received() {
		if m.Method == "initialize" {
			inits++
		}
	}
	if inits != 2 {
		t.Errorf("%d initialize requests, want 2 (one re-initialization)", inits)
	}
}

func TestMalformedSSE(t *testing.T) {
	tests := []struct {
		name, body, where string
	}{
		{"not JSON", "event: message\nid: 9\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\n\n", `SSE event 1 (id "9")`},
		{"not JSON-RPC", "data: {\"jsonrpc\":\"1.0\",\"id\":2}\n\n", "SSE event 1"},
		{"second event bad", ": hi\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\ndata: [1,\n\n", "SSE event 2"},
		{"response without result", "data: {\"jsonrpc\":\"2.0\",\"id\":ID}\n\n", "SSE event 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
				sseHead(w)
				io.WriteString(w, strings.ReplaceAll(tt.body, "ID", string(m.ID)))
			})
			c := dial(t, f.URL, nil)
			_, err := c.CallTool(context.Background(), "x", nil)
			checkOneLine(t, err)
			var pe *mcp.ProtocolError
			if !errors.As(err, &pe) || pe.Where != tt.where {
				t.Errorf("err = %v, want a ProtocolError at %s", err, tt.where)
			}
		})
	}
}

func TestMalformedJSON(t *testing.T) {
	tests := []struct{ name, ct, body, want string }{
		{"syntax", "application/json", `{"jsonrpc":"2.0","id":2,"result":}`, "invalid JSON at byte"},
		{"cut, ended cleanly", "application/json", `{"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"te`, "the JSON ends after 56 bytes, before its end: the body was cut"},
		{"wrong id", "application/json", `{"jsonrpc":"2.0","id":77,"result":{}}`, "response for id 77, want "},
		{"a request", "application/json", `{"jsonrpc":"2.0","id":2,"method":"x"}`, "not a JSON-RPC response"},
		{"content type", "text/html", `<html>`, `"text/html" is neither`},
		{"bad result", "application/json", `{"jsonrpc":"2.0","id":ID,"result":{"content":[{"text":"no type"}]}}`, `content block has no "type"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
				w.Header().Set("Content-Type", tt.ct)
				io.WriteString(w, strings.ReplaceAll(tt.body, "ID", string(m.ID)))
			})
			c := dial(t, f.URL, nil)
			_, err := c.CallTool(context.Background(), "x", nil)
			checkOneLine(t, err)
			var pe *mcp.ProtocolError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a ProtocolError with %q", err, tt.want)
			}
		})
	}
}

// A JSON-RPC error is an RPCError whether it comes with 200 or with an
// HTTP error status.
func TestRPCErrorWithData(t *testing.T) {
	for _, status := range []int{200, 400, 422} {
		f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"bad\nparams","data":{"field":"/path"}}}`, m.ID)
		})
		c := dial(t, f.URL, nil)
		_, err := c.CallTool(context.Background(), "x", nil)
		checkOneLine(t, err)
		var re *mcp.RPCError
		if !errors.As(err, &re) || re.Code != mcp.CodeInvalidParams || string(re.Data) != `{"field":"/path"}` {
			t.Errorf("HTTP %d: err = %#v", status, err)
		}
	}
}

func TestAcceptedWithoutAnswer(t *testing.T) {
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		w.WriteHeader(http.StatusAccepted)
	})
	c := dial(t, f.URL, nil)
	_, err := c.ListTools(context.Background())
	var pe *mcp.ProtocolError
	if !errors.As(err, &pe) || pe.Where != "HTTP status" {
		t.Errorf("err = %v", err)
	}
}

// The stream ends before the response: without event IDs it cannot be
// resumed.
func TestTruncatedSSE(t *testing.T) {
	for _, body := range []string{
		"",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[]}}", // no blank line: never dispatched
	} {
		f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
			sseHead(w)
			io.WriteString(w, body)
		})
		c := dial(t, f.URL, nil)
		_, err := c.CallTool(context.Background(), "x", nil)
		checkOneLine(t, err)
		if !errors.Is(err, mcp.ErrStreamEnded) {
			t.Errorf("body %q: err = %v, want ErrStreamEnded", body, err)
		}
	}
}

// The server primes the stream with an event ID and closes it (allowed
// since 2025-11-25); the client resumes with GET and Last-Event-ID after
// the retry interval and gets the response there.
func TestSSEResume(t *testing.T) {
	var callID json.RawMessage
	var gotLast []string
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		callID = m.ID
		sseHead(w)
		io.WriteString(w, "id: ev-1\nretry: 10\ndata:\n\n")
	})
	f.onGET = func(w http.ResponseWriter, r *http.Request) {
		gotLast = append(gotLast, r.Header.Get("Last-Event-ID")+" "+r.Header.Get("Accept")+" "+r.Header.Get("Mcp-Session-Id"))
		sseHead(w)
		if len(gotLast) == 1 {
			io.WriteString(w, "id: ev-2\ndata:\n\n") // closes again
			return
		}
		fmt.Fprintf(w, "id: ev-3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", callID, okResult)
	}
	c := dial(t, f.URL, nil)
	res, err := c.CallTool(context.Background(), "x", nil)
	if err != nil || res.Text() != "ok" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	want := []string{"ev-1 text/event-stream s1", "ev-2 text/event-stream s1"}
	if fmt.Sprint(gotLast) != fmt.Sprint(want) {
		t.Errorf("GETs %q, want %q", gotLast, want)
	}
}

func TestSSEResumeRefused(t *testing.T) {
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		sseHead(w)
		io.WriteString(w, "id: ev-1\ndata:\n\n")
	})
	c := dial(t, f.URL, nil)
	_, err := c.CallTool(context.Background(), "x", nil)
	checkOneLine(t, err)
	if !errors.Is(err, mcp.ErrStreamEnded) || !strings.Contains(err.Error(), "HTTP 405") {
		t.Errorf("err = %v", err)
	}
}

// A server that never answers: the call times out, and the server is told
// with notifications/cancelled carrying the call's request ID.
func TestNeverAnswers(t *testing.T) {
	for _, mode := range []string{"no headers", "open stream"} {
		t.Run(mode, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
				if mode == "open stream" {
					sseHead(w)
					io.WriteString(w, ": working\n\n")
					w.(http.Flusher).Flush()
				}
				select {
				case <-r.Context().Done():
				case <-release:
				}
			})
			c := dial(t, f.URL, &mcp.Options{Timeout: 150 * time.Millisecond})
			_, err := c.CallTool(context.Background(), "slow", nil)
			checkOneLine(t, err)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want DeadlineExceeded", err)
			}
			var callID json.RawMessage
			var cancelled *rpc
			for _, m := range f.received() {
				if m.Method == "tools/call" {
					callID = m.ID
				}
				if m.Method == "notifications/cancelled" {
					cancelled = &m
				}
			}
			if cancelled == nil {
				t.Fatal("no notifications/cancelled")
			}
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
				Reason    string          `json:"reason"`
			}
			json.Unmarshal(cancelled.Params, &p)
			if string(p.RequestID) != string(callID) || p.Reason != "the request timed out" || cancelled.Session != "s1" {
				t.Errorf("cancelled %s in session %q, call id %s", cancelled.Params, cancelled.Session, callID)
			}
		})
	}
}

func TestCallerCancels(t *testing.T) {
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		<-r.Context().Done()
	})
	c := dial(t, f.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.ListTools(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	var reason string
	for _, m := range f.received() {
		if m.Method == "notifications/cancelled" {
			var p struct{ Reason string }
			json.Unmarshal(m.Params, &p)
			reason = p.Reason
		}
	}
	if reason != "the client cancelled the request" {
		t.Errorf("cancel reason %q", reason)
	}
}

func TestOversized(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	for _, mode := range []string{"json", "sse", "sse notifications"} {
		t.Run(mode, func(t *testing.T) {
			f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
				switch mode {
				case "json":
					writeJSON(w, m.ID, fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, big))
				case "sse":
					sseHead(w)
					fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", m.ID, big)
				default: // many small messages, none too big alone
					sseHead(w)
					for range 2000 {
						fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":%q}}\n\n", big[:1000])
					}
					fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", m.ID, okResult)
				}
			})
			c := dial(t, f.URL, &mcp.Options{MaxResponseBytes: 1 << 20})
			_, err := c.CallTool(context.Background(), "big", nil)
			checkOneLine(t, err)
			var te *mcp.TooLargeError
			if !errors.As(err, &te) || te.Limit != 1<<20 {
				t.Errorf("err = %v, want TooLargeError", err)
			}
		})
	}
}

// A tool that ran and failed is a result, not an error.
func TestToolIsError(t *testing.T) {
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		writeJSON(w, m.ID, `{"content":[{"type":"text","text":"disk full"}],"isError":true}`)
	})
	c := dial(t, f.URL, nil)
	res, err := c.CallTool(context.Background(), "write", map[string]any{"path": "/tmp/x"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Text() != "disk full" {
		t.Errorf("result %+v", res)
	}
}

func TestUnsupportedVersion(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m rpc
		json.NewDecoder(r.Body).Decode(&m)
		if m.Method != "initialize" {
			http.Error(w, "unknown method", http.StatusBadRequest)
			return
		}
		writeJSON(w, m.ID, `{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"old","version":"0"}}`)
	}))
	defer ts.Close()
	_, err := mcp.Dial(context.Background(), ts.URL, testOptions(nil))
	checkOneLine(t, err)
	if !strings.Contains(err.Error(), `"2024-11-05"`) {
		t.Errorf("err = %v", err)
	}
}

func TestPaginationLoop(t *testing.T) {
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		writeJSON(w, m.ID, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"same"}`)
	})
	c := dial(t, f.URL, nil)
	_, err := c.ListTools(context.Background())
	checkOneLine(t, err)
	if !strings.Contains(err.Error(), `pagination does not end (cursor "same")`) {
		t.Errorf("err = %v", err)
	}
}

// Headers from Options reach every request (a relay's authorization),
// but cannot override the transport's own.
func TestExtraHeaders(t *testing.T) {
	var mu sync.Mutex
	var auth, sess []string
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		writeJSON(w, m.ID, okResult)
	})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		sess = append(sess, r.Header.Get("Mcp-Session-Id"))
		mu.Unlock()
		f.ServeHTTP(w, r)
	}))
	defer ts.Close()
	h := http.Header{}
	h.Set("Authorization", "Bearer t")
	h.Set("Mcp-Session-Id", "forged")
	c := dial(t, ts.URL, &mcp.Options{Header: h})
	if _, err := c.CallTool(context.Background(), "x", nil); err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(auth) != "[Bearer t Bearer t Bearer t Bearer t]" || fmt.Sprint(sess) != "[ s1 s1 s1]" {
		t.Errorf("Authorization %q, sessions %q", auth, sess)
	}
}

// breakOff writes an SSE response's head and body on the raw connection
// of w's request and breaks the connection off without the chunked
// encoding's last chunk: with a reset (RST) where the network has one,
// as a failing server or a proxy aborting does.
func breakOff(w http.ResponseWriter, body string) {
	c, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	defer c.Close()
	fmt.Fprintf(brw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(body), body)
	brw.Flush()
	if tc, ok := c.(*net.TCPConn); ok {
		time.Sleep(50 * time.Millisecond) // let the client read the chunk first
		tc.SetLinger(0)
	}
}

// A response stream that breaks off — a read error, not an end — before
// the response is a stream that ended: resumed with GET when it sent an
// event ID, otherwise an error wrapping ErrStreamEnded that says it broke
// off. Never a result.
func TestBrokenOffSSE(t *testing.T) {
	const note = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"
	t.Run("no event id", func(t *testing.T) {
		for _, body := range []string{note, note + "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"te"} {
			f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) { breakOff(w, body) })
			c := dial(t, f.URL, nil)
			res, err := c.CallTool(context.Background(), "x", nil)
			checkOneLine(t, err)
			if res != nil {
				t.Errorf("a result %+v from a broken-off stream", res)
			}
			if !errors.Is(err, mcp.ErrStreamEnded) {
				t.Errorf("body %.40q: err = %v, want ErrStreamEnded", body, err)
			}
			if !strings.Contains(err.Error(), "after 1 events") {
				t.Errorf("%q does not say how far the stream got", err)
			}
		}
	})
	t.Run("resumed after an event id", func(t *testing.T) {
		var callID json.RawMessage
		var gets []string
		f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
			callID = m.ID
			breakOff(w, "id: ev-1\ndata:\n\n"+note)
		})
		f.onGET = func(w http.ResponseWriter, r *http.Request) {
			gets = append(gets, r.Header.Get("Last-Event-ID"))
			sseHead(w)
			fmt.Fprintf(w, "id: ev-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", callID, okResult)
		}
		c := dial(t, f.URL, nil)
		res, err := c.CallTool(context.Background(), "x", nil)
		if err != nil || res.Text() != "ok" {
			t.Fatalf("CallTool = %v, %v; want the result from the resumed stream", res, err)
		}
		if fmt.Sprint(gets) != "[ev-1]" {
			t.Errorf("GETs with Last-Event-ID %q, want [ev-1]", gets)
		}
	})
}

// A JSON response that breaks off is an error saying where, never a
// result.
func TestBrokenOffJSON(t *testing.T) {
	f := newFaultServer(t, func(w http.ResponseWriter, r *http.Request, m rpc) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "200")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[`, m.ID)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	c := dial(t, f.URL, nil)
	res, err := c.CallTool(context.Background(), "x", nil)
	checkOneLine(t, err)
	var pe *mcp.ProtocolError
	if res != nil || !errors.As(err, &pe) || !strings.Contains(pe.Where, "broken off after") {
		t.Errorf("CallTool = %v, %v; want a ProtocolError saying the body broke off", res, err)
	}
}
