package proxytest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Timeouts are the clocks a host of the handlers was configured with
// (proxy.Config's BodyTimeout, HeaderTimeout and IdleTimeout), short in
// tests so that the suite can watch each one fire.
type Timeouts struct {
	Body, Header, Idle time.Duration
}

// slack is what a host may take beyond a timeout to act on it: a fresh
// Worker instance, a loaded machine.
const slack = 5 * time.Second

// checkAPIHeaders fails t unless h carries the headers that keep any
// /api/ response from running as a page.
func checkAPIHeaders(t *testing.T, h http.Header) {
	t.Helper()
	if got := h.Values("Content-Security-Policy"); len(got) != 1 || got[0] != "default-src 'none'; sandbox" {
		t.Errorf("Content-Security-Policy %q, want exactly \"default-src 'none'; sandbox\"", got)
	}
	if got := h.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
		t.Errorf("X-Content-Type-Options %q, want nosniff", got)
	}
}

// checkNotAPage fails t unless resp, an upstream's text/html passed back,
// is a sandboxed download that cannot run as a page.
func checkNotAPage(t *testing.T, resp *Response) {
	t.Helper()
	checkAPIHeaders(t, resp.Header)
	if got := resp.Header.Values("Content-Disposition"); len(got) != 1 || got[0] != "attachment" {
		t.Errorf("Content-Disposition %q, want attachment", got)
	}
	if string(resp.Body) != HTMLPage {
		t.Errorf("body %.200q, want the upstream's page, unchanged", resp.Body)
	}
}

// endsWhole reports whether layer ends a response body that its handler
// aborted as if it were whole. workerd does, for a chunked body: the
// Worker errors the body stream, and workerd still sends the chunked
// encoding's last chunk (measured under wrangler dev, and with workerd
// alone). A body whose length the upstream declared is passed on with
// its Content-Length, and a short one breaks off on every layer.
func endsWhole(l Layer, declared bool) bool { return l == Workerd && !declared }

// checkCut fails t unless resp, a reply the server behind the host broke
// off (fault) after CutFirst, reaches the client as its layer can pass it
// on: broken off, its body read to the end ending in an error, so that a
// browser sees a failed fetch rather than a short reply it would take for
// the whole — or, where the layer cannot break a body off (endsWhole),
// with exactly the bytes sent before the break.
func checkCut(t *testing.T, l Layer, fault string, resp *http.Response) {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d, want the server's 200 passed on before its body broke off", resp.StatusCode)
	}
	b, err := io.ReadAll(resp.Body)
	switch {
	case err == nil && endsWhole(l, fault == FaultShortBody):
		if string(b) != CutFirst {
			t.Errorf("body %.200q, want what the server sent before the break, %q", b, CutFirst)
		}
		t.Logf("%s ends the broken-off body as if whole after %d bytes (Content-Length %q)", l, len(b), resp.Header.Get("Content-Length"))
		return
	case err == nil:
		t.Errorf("the body ended cleanly after %d bytes (%.80q): a reply broken off upstream reached the client as if complete", len(b), b)
		return
	case endsWhole(l, fault == FaultShortBody):
		t.Errorf("the body broke off after %d bytes (%v); %s was measured to end it as if whole: update endsWhole", len(b), err, l)
	}
	if !strings.HasPrefix(CutFirst, string(b)) {
		t.Errorf("body %.200q, want a prefix of what the server sent, %q", b, CutFirst)
	}
	t.Logf("the body broke off after %d bytes (Content-Length %q): %v", len(b), resp.Header.Get("Content-Length"), err)
}

// cutFaults are the replies that break off after their headers.
var cutFaults = []string{FaultShortBody, FaultUnfinishedChunks, FaultReset}

// RunEdge checks how the proxy passes back an upstream gone wrong: a page
// (sandboxed, a download), a connection closed without an answer (a 502
// that quotes neither the URL nor its query), and a reply that breaks off
// after its headers (broken off for the client too, never ended cleanly).
func RunEdge(t *testing.T, tg Target) {
	for _, fault := range cutFaults {
		t.Run("cut-"+fault, func(t *testing.T) {
			defer tg.settle(t)
			checkCut(t, tg.Layer, fault, tg.roundTrip(t, "GET", mp+fault, map[string]string{"Origin": tg.Origin, "Authorization": Key}, ""))
		})
	}
	t.Run("html-from-upstream", func(t *testing.T) {
		resp := tg.do(t, "GET", mp+"html", map[string]string{"Origin": tg.Origin, "Authorization": Key}, "")
		if resp.Status != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("got %d %q, want the upstream's 200 text/html", resp.Status, resp.Header.Get("Content-Type"))
		}
		checkNotAPage(t, resp)
	})
	t.Run("hangup-quotes-no-url", func(t *testing.T) {
		resp := tg.do(t, "GET", mp+"hangup?key=QUERY-SENTINEL", map[string]string{"Origin": tg.Origin, "Authorization": Key}, "")
		if resp.Status != 502 || errorCode(resp) != "upstream_unreachable" {
			t.Fatalf("got %d %.300s, want 502 upstream_unreachable", resp.Status, resp.Body)
		}
		host := strings.TrimPrefix(tg.Upstream.srv.URL, "http://")
		for _, leak := range []string{"QUERY-SENTINEL", "hangup", host, "/api/v1"} {
			if strings.Contains(string(resp.Body), leak) {
				t.Errorf("the 502 quotes %q: %s", leak, resp.Body)
			}
		}
		checkAPIHeaders(t, resp.Header)
	})
}

// RunMCPEdge is RunEdge for the relay, plus a redirect from a server that
// receives Authorization: not followed, so the token goes nowhere else.
func RunMCPEdge(t *testing.T, tg MCPTarget) {
	hdr := map[string]string{"Origin": tg.Origin, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Authorization": Key}
	rpc := func(method string) string { return `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}` }
	post := func(t *testing.T, name, method string) *Response {
		return tg.do(t, "POST", mcpMount+name, hdr, rpc(method))
	}
	for _, fault := range cutFaults {
		t.Run("cut-"+fault, func(t *testing.T) {
			defer tg.proxyTarget().settle(t)
			checkCut(t, tg.Layer, fault, tg.proxyTarget().roundTrip(t, "POST", mcpMount+MCPRecorder, hdr, rpc("test/"+fault)))
		})
	}
	t.Run("html-from-server", func(t *testing.T) {
		resp := post(t, MCPRecorder, "test/html")
		if resp.Status != 200 {
			t.Fatalf("got %d %.300s", resp.Status, resp.Body)
		}
		checkNotAPage(t, resp)
	})
	t.Run("redirect-with-authorization-not-followed", func(t *testing.T) {
		mark := tg.Recorder.Len()
		resp := post(t, MCPRecorderAuth, "test/redirect")
		if resp.Status != 502 || errorCode(resp) != "upstream_redirect" {
			t.Errorf("got %d %.300s, want 502 upstream_redirect", resp.Status, resp.Body)
		}
		if resp.Header.Get("Location") != "" {
			t.Errorf("Location %q passed back", resp.Header.Get("Location"))
		}
		got := tg.Recorder.Requests()[mark:]
		if len(got) != 1 || got[0].RequestURI != mcpRecAuthPath {
			t.Errorf("MCP server received %v, want only %s (the redirect not followed)", uris(got), mcpRecAuthPath)
		}
	})
}

// RunTimeouts checks the proxy's clocks against an upstream that sends no
// headers and one that stalls mid-body, and against a client that
// trickles its body: each is given up within its timeout (plus slack),
// and the trickled body never reaches the upstream.
func RunTimeouts(t *testing.T, tg Target, c Timeouts) {
	hdr := map[string]string{"Origin": tg.Origin, "Authorization": Key}
	t.Run("no-headers", func(t *testing.T) {
		start := time.Now()
		resp := tg.do(t, "GET", mp+"slow-headers", hdr, "")
		el := time.Since(start)
		if resp.Status != 504 || errorCode(resp) != "upstream_timeout" {
			t.Errorf("got %d %.300s, want 504 upstream_timeout", resp.Status, resp.Body)
		}
		checkWithin(t, el, c.Header)
	})
	t.Run("stalled-body", func(t *testing.T) {
		defer tg.settle(t)
		start := time.Now()
		checkStalled(t, tg.Layer, tg.roundTrip(t, "GET", mp+"stall", hdr, ""))
		checkWithin(t, time.Since(start), c.Idle)
	})
	t.Run("silent-body", func(t *testing.T) {
		defer tg.settle(t)
		start := time.Now()
		checkSilent(t, tg.Layer, func() (*http.Response, error) {
			return tg.send(t, "GET", mp+"silent", hdr, "")
		})
		checkWithin(t, time.Since(start), c.Idle)
	})
	t.Run("trickled-body", func(t *testing.T) {
		defer tg.settle(t)
		mark := tg.Upstream.Len()
		runTrickle(t, tg.Addr, tg.raw(Attack{Method: "POST", Target: mp + "chat/completions",
			Headers: []string{"Origin: {origin}", "Authorization: {key}", jsonCT, "Content-Length: 100000"}}), c.Body)
		if n := tg.Upstream.Len() - mark; n != 0 {
			t.Errorf("a trickled body reached the upstream")
		}
	})
}

// RunMCPTimeouts is RunTimeouts for the relay.
func RunMCPTimeouts(t *testing.T, tg MCPTarget, c Timeouts) {
	post := func(t *testing.T, method string) *http.Response {
		return tg.proxyTarget().roundTrip(t, "POST", mcpMount+MCPRecorder, map[string]string{"Origin": tg.Origin,
			"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, `{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`)
	}
	t.Run("no-headers", func(t *testing.T) {
		start := time.Now()
		resp := post(t, "test/slow-headers")
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 504 || !strings.Contains(string(b), `"upstream_timeout"`) {
			t.Errorf("got %d %.300s, want 504 upstream_timeout", resp.StatusCode, b)
		}
		checkWithin(t, time.Since(start), c.Header)
	})
	t.Run("stalled-body", func(t *testing.T) {
		defer tg.proxyTarget().settle(t)
		start := time.Now()
		checkStalled(t, tg.Layer, post(t, "test/stall"))
		checkWithin(t, time.Since(start), c.Idle)
	})
	t.Run("silent-body", func(t *testing.T) {
		defer tg.proxyTarget().settle(t)
		start := time.Now()
		checkSilent(t, tg.Layer, func() (*http.Response, error) {
			return tg.proxyTarget().send(t, "POST", mcpMount+MCPRecorder, map[string]string{"Origin": tg.Origin,
				"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, `{"jsonrpc":"2.0","id":1,"method":"test/silent"}`)
		})
		checkWithin(t, time.Since(start), c.Idle)
	})
	t.Run("trickled-body", func(t *testing.T) {
		defer tg.proxyTarget().settle(t)
		mark := tg.Recorder.Len()
		runTrickle(t, tg.Addr, tg.proxyTarget().raw(Attack{Method: "POST", Target: mcpMount + MCPRecorder,
			Headers: []string{"Origin: {origin}", jsonCT, mcpAcc, "Content-Length: 100000"}}), c.Body)
		if n := tg.Recorder.Len() - mark; n != 0 {
			t.Errorf("a trickled body reached the MCP server")
		}
	})
}

// checkStalled fails t unless resp, a stream whose server stalls after
// StallFirst, brings StallFirst and then breaks off (on a layer that can
// break a chunked body off; see endsWhole): a stream cut for silence must
// not end as if the server had finished it.
func checkStalled(t *testing.T, l Layer, resp *http.Response) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != StallFirst {
		t.Errorf("got %d %q, want 200 and the one event before the stall", resp.StatusCode, b)
	}
	switch {
	case err == nil && endsWhole(l, false):
		t.Logf("%s ends the stalled stream as if whole", l)
	case err == nil:
		t.Errorf("the stalled stream ended cleanly; want it broken off")
	case endsWhole(l, false):
		t.Errorf("the stalled stream broke off (%v); %s was measured to end it as if whole: update endsWhole", err, l)
	default:
		t.Logf("the stalled stream broke off: %v", err)
	}
}

// checkSilent fails t unless the request send makes, to a server that
// sends its headers and then nothing, fails for the client: natively no
// response at all (the handler aborts before a byte of it was sent); in
// the Worker, whose bridge has not handed the runtime the response yet, a
// 502 upstream_idle. A 200 with an empty body ended cleanly would read
// as a complete empty reply.
func checkSilent(t *testing.T, l Layer, send func() (*http.Response, error)) {
	t.Helper()
	resp, err := send()
	if err != nil {
		if l == Workerd {
			t.Errorf("no response (%v); want the Worker's 502 upstream_idle", err)
			return
		}
		t.Logf("no response: %v", err)
		return
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	switch {
	case l == Workerd:
		if resp.StatusCode != 502 || !strings.Contains(string(b), `"upstream_idle"`) || err != nil {
			t.Errorf("got %d %.200q (%v), want 502 upstream_idle", resp.StatusCode, b, err)
		}
		checkAPIHeaders(t, resp.Header)
	case err == nil:
		t.Errorf("got %d with %d bytes (%.80q), ended cleanly; want no response", resp.StatusCode, len(b), b)
	default:
		t.Errorf("got %d, then the body broke off after %d bytes (%v); want no response", resp.StatusCode, len(b), err)
	}
}

func checkWithin(t *testing.T, el, timeout time.Duration) {
	t.Helper()
	if el < timeout*9/10 || el > timeout+slack {
		t.Errorf("gave up after %s; want about %s", el.Round(time.Millisecond), timeout)
	} else {
		t.Logf("gave up after %s (timeout %s)", el.Round(time.Millisecond), timeout)
	}
}

// runTrickle sends head (a request whose headers announce a large body)
// and then one byte of the body every tick, the slow-body attack, for at
// most timeout plus slack. The host must answer 408 body_timeout or
// close the connection within that time.
func runTrickle(t *testing.T, addr string, head []byte, timeout time.Duration) {
	t.Helper()
	// raw ends the headers with Connection: close and no body.
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(timeout + slack)
	c.SetDeadline(deadline)
	start := time.Now()
	if _, err := c.Write(head); err != nil {
		t.Fatal(err)
	}
	tick := timeout / 8
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(tick):
			}
			if _, err := c.Write([]byte{' '}); err != nil {
				return
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "POST"})
	close(stop)
	wg.Wait()
	el := time.Since(start)
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		t.Fatalf("still holding a trickled body after %s", el.Round(time.Millisecond))
	case err != nil:
		t.Logf("the connection was closed after %s (%v)", el.Round(time.Millisecond), err)
	default:
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 408 || !strings.Contains(string(b), `"body_timeout"`) {
			t.Errorf("got %d %.300s, want 408 body_timeout", resp.StatusCode, b)
		}
		checkAPIHeaders(t, resp.Header)
		checkWithin(t, el, timeout)
	}
}

// RunIdleConnections opens n connections to addr that send nothing and
// one that goes idle after a request for path, and fails unless the host
// closes every one within bound. Loopback only; n stays small.
func RunIdleConnections(t *testing.T, addr, path string, n int, bound time.Duration) {
	type result struct {
		el  time.Duration
		err error
	}
	results := make(chan result, n+1)
	wait := func(c net.Conn, start time.Time, br *bufio.Reader) {
		defer c.Close()
		c.SetReadDeadline(start.Add(bound))
		_, err := br.ReadByte()
		results <- result{time.Since(start), err}
	}
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		go wait(c, time.Now(), bufio.NewReader(c))
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	go wait(c, time.Now(), br)
	var worst time.Duration
	for i := 0; i <= n; i++ {
		r := <-results
		var ne net.Error
		if errors.As(r.err, &ne) && ne.Timeout() {
			t.Errorf("an idle connection was still open after %s", bound)
			continue
		}
		worst = max(worst, r.el)
	}
	t.Logf("%d idle connections (one after a request) closed by the host, the last after %s", n+1, worst.Round(time.Millisecond))
}

// RunRateLimit sends requests from one client to addr, which must allow
// limit of them per period and then answer 429 with Retry-After and the
// JSON error, and reports how many passed. Each request is a same-origin
// OPTIONS that the handlers answer themselves, so no upstream is
// involved. A window may end during the run, so up to 2×limit may pass
// before the first 429; spent is how many requests the caller may already
// have made from the same client in this window (a readiness probe), so
// as few as limit−spent may.
func RunRateLimit(t *testing.T, addr, origin string, limit, spent int) {
	var (
		mu       sync.Mutex
		passed   int
		limited  *http.Response
		body     []byte
		sent     int
		failures []error
	)
	next := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if limited != nil || sent > 2*limit || len(failures) > 0 {
			return false
		}
		sent++
		return true
	}
	cl := client()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next() {
				req, _ := http.NewRequest("OPTIONS", "http://"+addr+mp+"key", nil)
				req.Header.Set("Origin", origin)
				resp, err := cl.Do(req)
				if err != nil {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch resp.StatusCode {
				case http.StatusNoContent:
					passed++
				case http.StatusTooManyRequests:
					if limited == nil {
						limited, body = resp, b
					}
				default:
					failures = append(failures, fmt.Errorf("status %d %.200s", resp.StatusCode, b))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("requests failed: %v", failures[0])
	}
	if limited == nil {
		t.Fatalf("%d requests passed, none was limited; want a 429 after %d", passed, limit)
	}
	if passed < limit-spent || passed > 2*limit {
		t.Errorf("%d requests passed before the first 429; want %d (%d to %d with earlier requests and a window's end)", passed, limit, limit-spent, 2*limit)
	}
	if s, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Errorf("Retry-After %q, want 1 to 60 seconds", limited.Header.Get("Retry-After"))
	}
	if !strings.Contains(string(body), `"rate_limited"`) {
		t.Errorf("429 body %.300s, want the rate_limited error", body)
	}
	checkAPIHeaders(t, limited.Header)
	t.Logf("%d requests passed, then 429 Retry-After %s: %s", passed, limited.Header.Get("Retry-After"), strings.TrimSpace(string(body)))
}
