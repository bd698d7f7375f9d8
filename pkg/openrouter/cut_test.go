package openrouter

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// breakOff answers with header and the start of a reply, body, then
// breaks the connection off as a failing upstream (or a proxy passing one
// on) does: declared, the reply claims declared bytes by Content-Length;
// otherwise it is chunked and lacks its last chunk. clean ends the
// response normally instead, as a host that cannot break a body off
// (workerd) passes it on.
func breakOff(contentType, body string, declared int, clean bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		if declared > 0 {
			w.Header().Set("Content-Length", strconv.Itoa(declared))
		}
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, body)
		w.(http.Flusher).Flush()
		if !clean {
			panic(http.ErrAbortHandler)
		}
	}
}

// cutOf fails t unless err is a *CutError saying reason, with no result.
func cutOf(t *testing.T, err error, reason string) *CutError {
	t.Helper()
	var ce *CutError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v (%T), want a *CutError", err, err)
	}
	if !strings.Contains(ce.Error(), reason) {
		t.Errorf("%q does not say %q", ce.Error(), reason)
	}
	var me *MalformedError
	if errors.As(err, &me) {
		t.Errorf("a cut reply is not a malformed one (which a caller would ask the model again about): %v", err)
	}
	return ce
}

// TestCutReplies: a reply that ends before its end — a JSON body that
// breaks off or ends early, a stream without [DONE] or without a final
// finish_reason — is a *CutError that says what was cut, never a result.
func TestCutReplies(t *testing.T) {
	const half = `{"id":"gen-1","choices":[{"index":0,"message":{"role":"assistant","content":"hal`
	sse := "text/event-stream"
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `{"id":"gen-1","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
	}
	events := ": OPENROUTER PROCESSING\n\ndata: " + chunk(`{"role":"assistant","content":"par"}`, "") + "\n\n"
	for _, tt := range []struct {
		name   string
		h      http.HandlerFunc
		stream bool
		reason string
		bytes  int64
	}{
		{"JSON short of its Content-Length", breakOff("application/json", half, 100, false), false, "the connection broke off", int64(len(half))},
		{"JSON chunked, without its last chunk", breakOff("application/json", half, 0, false), false, "the connection broke off", int64(len(half))},
		{"JSON that ends early, ended cleanly", breakOff("application/json", half, 0, true), false, "the JSON ends before its end", int64(len(half))},
		{"empty body", breakOff("application/json", "", 0, true), false, "the JSON ends before its end", 0},
		{"only keep-alive whitespace", breakOff("application/json", "\n\n   \n", 0, true), false, "the JSON ends before its end", 6},
		{"stream without [DONE], ended cleanly", breakOff(sse, events, 0, true), true, "without data: [DONE]", int64(len(events))},
		{"stream broken off", breakOff(sse, events, 0, false), true, "without data: [DONE]", int64(len(events))},
		{"stream broken off inside an event", breakOff(sse, events+"data: {\"id\"", 0, false), true, "without data: [DONE]", int64(len(events)) + 11},
		{"stream with [DONE] but no finish_reason", breakOff(sse, events+"data: [DONE]\n\n", 0, true), true, "no finish_reason", int64(len(events)) + 14},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := server(t, tt.h)
			var (
				r   *Response
				err error
			)
			if tt.stream {
				r, err = c.ChatStream(context.Background(), simpleRequest, nil)
			} else {
				r, err = c.Chat(context.Background(), simpleRequest)
			}
			if r != nil {
				t.Errorf("a response %+v from a cut reply", r)
			}
			ce := cutOf(t, err, tt.reason)
			if ce.Bytes != tt.bytes {
				t.Errorf("Bytes %d, want %d; %v", ce.Bytes, tt.bytes, ce)
			}
			if !strings.Contains(ce.Error(), "POST /chat/completions") {
				t.Errorf("%q does not name the request", ce.Error())
			}
			t.Log(ce)
		})
	}
	t.Run("GET /key broken off", func(t *testing.T) {
		c, _ := server(t, breakOff("application/json", `{"data":{"label":"x`, 64, false))
		_, err := c.Key(context.Background())
		cutOf(t, err, "GET /key")
	})
}
