package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// accepting answers every request the client makes while reading a
// response (answers to server requests, a resuming GET) without a network:
// 202 to POST, 405 to GET.
type accepting struct{}

func (accepting) RoundTrip(r *http.Request) (*http.Response, error) {
	status := http.StatusAccepted
	if r.Method == http.MethodGet {
		status = http.StatusMethodNotAllowed
	}
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

// FuzzReadResponse feeds arbitrary response bodies, as JSON and as SSE, to
// the client's response reader, and checks that it never panics, returns
// either a result or an error, and that every error is one of the typed
// errors (or the context's) and prints on one line.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse\nerror"}}`,
		"event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"id: p\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"res",
		"retry: 5\nid: x\ndata:\n\n",
	} {
		f.Add(true, []byte(s))
		f.Add(false, []byte(s))
	}
	f.Fuzz(func(t *testing.T, stream bool, body []byte) {
		c := &Client{url: "http://mcp.invalid/mcp", hc: &http.Client{Transport: accepting{}}, maxBytes: 1 << 16}
		ct := "application/json"
		if stream {
			ct = "text/event-stream"
		}
		resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {ct}},
			Body: io.NopCloser(bytes.NewReader(body))}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		res, err := c.readResponse(ctx, "op", 1, resp, &callConfig{progress: func(Progress) {}}, wire{session: "s"})
		if (res == nil) == (err == nil) {
			t.Fatalf("result %q and error %v", res, err)
		}
		if err == nil {
			return
		}
		var (
			pe *ProtocolError
			re *RPCError
			te *TooLargeError
		)
		if !errors.As(err, &pe) && !errors.As(err, &re) && !errors.As(err, &te) && ctx.Err() == nil {
			t.Fatalf("untyped error %T: %v", err, err)
		}
		if strings.ContainsAny(err.Error(), "\r\n") && ctx.Err() == nil {
			t.Fatalf("error on several lines: %q", err)
		}
	})
}
