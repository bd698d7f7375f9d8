package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
)

// rpcs returns the JSON-RPC methods of the POSTs among reqs, in order.
func rpcs(reqs []seen) []string {
	var out []string
	for _, r := range reqs {
		if r.Method == http.MethodPost {
			out = append(out, r.RPC)
		}
	}
	return out
}

// dialEcho dials url with opts and checks that the client works: echo
// answers. It returns the negotiated revision.
func dialEcho(t *testing.T, url string, opts *mcp.Options) string {
	t.Helper()
	c := dial(t, url, opts)
	res, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "m"})
	if err != nil || res.Text() != "m" {
		t.Fatalf("echo after Dial: %v %v", res, err)
	}
	return c.ServerInfo().ProtocolVersion
}

// With a memo, a server that speaks the session revision is dialled with
// initialize every time, as without one (nothing is probed first); a
// server that speaks only the sessionless revision refuses the first
// dial's initialize and is remembered, so later dials discover it at once
// (that request is its handshake). The refused initialize never reaches
// the recorder (refuseInitialize answers it in front).
func TestRevisionsRemember(t *testing.T) {
	tests := []struct {
		name      string
		opts      *sdk.StreamableHTTPOptions
		only      bool // the server refuses the session revision
		memo      bool
		want      string   // the revision both dials negotiate
		first     []string // the first dial's POSTs the server records
		second    []string // the second dial's POSTs
		remembers string   // the memo after the dials
	}{
		{"session server, SSE", &sdk.StreamableHTTPOptions{}, false, true, mcp.ProtocolVersion,
			[]string{"initialize", "notifications/initialized", "tools/call"},
			[]string{"initialize", "notifications/initialized", "tools/call"}, mcp.ProtocolVersion},
		{"session server, JSON", &sdk.StreamableHTTPOptions{JSONResponse: true}, false, true, mcp.ProtocolVersion,
			[]string{"initialize", "notifications/initialized", "tools/call"},
			[]string{"initialize", "notifications/initialized", "tools/call"}, mcp.ProtocolVersion},
		{"stateless-only server", &sdk.StreamableHTTPOptions{Stateless: true}, true, true, mcp.StatelessProtocolVersion,
			[]string{"server/discover", "tools/call"},
			[]string{"server/discover", "tools/call"}, mcp.StatelessProtocolVersion},
		{"session server, no memo", &sdk.StreamableHTTPOptions{}, false, false, mcp.ProtocolVersion,
			[]string{"initialize", "notifications/initialized", "tools/call"},
			[]string{"initialize", "notifications/initialized", "tools/call"}, ""},
		{"stateless-only server, no memo", &sdk.StreamableHTTPOptions{Stateless: true}, true, false, mcp.StatelessProtocolVersion,
			[]string{"server/discover", "tools/call"},
			[]string{"server/discover", "tools/call"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSDKServerOpts(t, tt.opts)
			if tt.only {
				srv = newStatelessOnly(t, tt.opts)
			}
			var memo *mcp.Revisions
			if tt.memo {
				memo = &mcp.Revisions{}
			}
			opts := &mcp.Options{Revisions: memo}
			for i, want := range [][]string{tt.first, tt.second} {
				n := len(srv.Rec.requests())
				if v := dialEcho(t, srv.URL, opts); v != tt.want {
					t.Errorf("dial %d negotiated %s, want %s", i+1, v, tt.want)
				}
				if got := rpcs(srv.Rec.requests()[n:]); strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("dial %d sent %q, want %q", i+1, got, want)
				}
			}
			if got := memo.Revision(srv.URL); got != tt.remembers {
				t.Errorf("memo says %q, want %q", got, tt.remembers)
			}
			if got := memo.Revision(srv.URL + "/other"); got != "" {
				t.Errorf("memo says %q for an endpoint never dialed", got)
			}
		})
	}
}

// A pinned revision neither reads nor writes the memo: a server that
// speaks both revisions, pinned to the sessionless one, leaves the memo
// empty, and an unpinned dial then negotiates the session revision.
func TestRevisionsPinned(t *testing.T) {
	srv := newSDKServerOpts(t, &sdk.StreamableHTTPOptions{Stateless: true})
	memo := &mcp.Revisions{}
	if v := dialEcho(t, srv.URL, &mcp.Options{Revisions: memo, ProtocolVersion: mcp.StatelessProtocolVersion}); v != mcp.StatelessProtocolVersion {
		t.Errorf("pinned dial negotiated %s", v)
	}
	if got := memo.Revision(srv.URL); got != "" {
		t.Errorf("a pinned dial wrote %q into the memo", got)
	}
	if v := dialEcho(t, srv.URL, &mcp.Options{Revisions: memo}); v != mcp.ProtocolVersion {
		t.Errorf("unpinned dial after the pinned one negotiated %s", v)
	}
}

// swapServer is one endpoint whose server is replaced between dials, as
// when a server is upgraded or restarted behind the same URL. rec sees
// every request to the endpoint.
type swapServer struct {
	URL string
	ts  *httptest.Server
	rec *recorder

	mu sync.Mutex
	h  http.Handler
}

func newSwapServer(t *testing.T, h http.Handler) *swapServer {
	s := &swapServer{h: h}
	s.rec = &recorder{next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		h := s.h
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})}
	s.ts = httptest.NewServer(s.rec)
	t.Cleanup(s.ts.Close)
	s.URL = s.ts.URL + "/mcp"
	return s
}

func (s *swapServer) swap(h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.h = h
}

// refuseInitialize answers initialize as a server that speaks only
// 2026-07-28 may: 400 with a JSON-RPC error. Everything else goes to next.
func refuseInitialize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(b, &m)
		if m.Method == "initialize" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"initialize is not part of revision 2026-07-28"}}`, m.ID)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		next.ServeHTTP(w, r)
	})
}

// A memo naming a revision the server no longer speaks never makes a
// dial fail that would succeed without it: Dial forgets it, negotiates
// afresh in the same call and remembers what it negotiated. A server
// that is down or broken fails as it would without a memo.
func TestRevisionsServerChanged(t *testing.T) {
	stateful := func(t *testing.T) http.Handler { return newSDKServer(t, false).Rec }
	stateless := func(t *testing.T) http.Handler {
		return newSDKServerOpts(t, &sdk.StreamableHTTPOptions{Stateless: true}).Rec
	}
	statelessOnly := func(t *testing.T) http.Handler { return refuseInitialize(stateless(t)) }
	broken := func(t *testing.T) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "internal trouble", http.StatusInternalServerError)
		})
	}
	tests := []struct {
		name          string
		before, after func(t *testing.T) http.Handler
		remembered    string   // the memo after the first dial
		want          string   // the second dial's revision; "" if it fails
		second        []string // the second dial's POSTs
		remembers     string   // the memo after the second dial
	}{
		{"stateless server became session-only", statelessOnly, stateful, mcp.StatelessProtocolVersion, mcp.ProtocolVersion,
			[]string{"server/discover", "initialize", "notifications/initialized", "tools/call"}, mcp.ProtocolVersion},
		{"session server became stateless-only", stateful, statelessOnly, mcp.ProtocolVersion, mcp.StatelessProtocolVersion,
			[]string{"initialize", "server/discover", "tools/call"}, mcp.StatelessProtocolVersion},
		{"session server restarted", stateful, stateful, mcp.ProtocolVersion, mcp.ProtocolVersion,
			[]string{"initialize", "notifications/initialized", "tools/call"}, mcp.ProtocolVersion},
		// It still accepts the remembered revision, which stays in use.
		{"session server now speaks both", stateful, stateless, mcp.ProtocolVersion, mcp.ProtocolVersion,
			[]string{"initialize", "notifications/initialized", "tools/call"}, mcp.ProtocolVersion},
		{"session server broke", stateful, broken, mcp.ProtocolVersion, "",
			[]string{"initialize", "server/discover"}, ""},
		{"stateless server broke", statelessOnly, broken, mcp.StatelessProtocolVersion, "",
			[]string{"server/discover", "initialize"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSwapServer(t, tt.before(t))
			memo := &mcp.Revisions{}
			opts := &mcp.Options{Revisions: memo}
			dialEcho(t, srv.URL, opts)
			if got := memo.Revision(srv.URL); got != tt.remembered {
				t.Fatalf("after the first dial the memo says %q, want %q", got, tt.remembered)
			}
			srv.swap(tt.after(t))
			n := len(srv.rec.requests())
			if tt.want == "" {
				_, err := mcp.Dial(context.Background(), srv.URL, testOptions(opts))
				checkOneLine(t, err)
				// The same error as without a memo.
				_, plain := mcp.Dial(context.Background(), srv.URL, testOptions(nil))
				if plain == nil || err.Error() != plain.Error() {
					t.Errorf("with a stale memo: %v; without one: %v", err, plain)
				}
				var he *mcp.HTTPError
				if !errors.As(err, &he) || he.StatusCode != http.StatusInternalServerError {
					t.Errorf("err = %v, want the HTTP 500", err)
				}
			} else if v := dialEcho(t, srv.URL, opts); v != tt.want {
				t.Errorf("second dial negotiated %s, want %s", v, tt.want)
			}
			got := rpcs(srv.rec.requests()[n:])
			if len(got) > len(tt.second) {
				got = got[:len(tt.second)] // the dial without a memo, above
			}
			if strings.Join(got, ",") != strings.Join(tt.second, ",") {
				t.Errorf("second dial sent %q, want %q", got, tt.second)
			}
			if got := memo.Revision(srv.URL); got != tt.remembers {
				t.Errorf("after the second dial the memo says %q, want %q", got, tt.remembers)
			}
		})
	}
}

// A server that cannot be reached is not a changed server: the dial
// fails as without a memo, and the memo keeps the revision.
func TestRevisionsUnreachable(t *testing.T) {
	srv := newSwapServer(t, newSDKServer(t, false).Rec)
	memo := &mcp.Revisions{}
	dialEcho(t, srv.URL, &mcp.Options{Revisions: memo})
	srv.ts.Close()
	_, err := mcp.Dial(context.Background(), srv.URL, testOptions(&mcp.Options{Revisions: memo}))
	checkOneLine(t, err)
	var ue *mcp.UnreachableError
	if !errors.As(err, &ue) {
		t.Errorf("err = %v, want UnreachableError", err)
	}
	if got := memo.Revision(srv.URL); got != mcp.ProtocolVersion {
		t.Errorf("memo says %q after an unreachable server, want %q", got, mcp.ProtocolVersion)
	}
}

// Many dials share one memo: all succeed, and once the memo is written
// no dial probes any more.
func TestRevisionsConcurrent(t *testing.T) {
	a := newSDKServer(t, false)
	b := newStatelessOnly(t, &sdk.StreamableHTTPOptions{Stateless: true})
	memo := &mcp.Revisions{}
	opts := &mcp.Options{Revisions: memo}
	const n = 10
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for range n {
		for _, srv := range []*sdkServer{a, b} {
			wg.Go(func() {
				c, err := mcp.Dial(context.Background(), srv.URL, testOptions(opts))
				if err != nil {
					errs <- err
					return
				}
				defer c.Close(context.Background())
				if _, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "c"}); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := memo.Revision(a.URL); got != mcp.ProtocolVersion {
		t.Errorf("memo for the session server: %q", got)
	}
	if got := memo.Revision(b.URL); got != mcp.StatelessProtocolVersion {
		t.Errorf("memo for the stateless server: %q", got)
	}
	before := len(a.Rec.requests())
	dialEcho(t, a.URL, opts)
	for _, r := range a.Rec.requests()[before:] {
		if r.RPC == "server/discover" {
			t.Error("a dial after the concurrent ones probed again")
		}
	}
}
