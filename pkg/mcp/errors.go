package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Errors the client returns. Each prints as one line naming the operation;
// callers branch with errors.As. A call that failed because its context
// ended wraps the context's error (context.Canceled or
// context.DeadlineExceeded), after the client has told the server with
// notifications/cancelled.

// UnreachableError means no HTTP response arrived: the connection was
// refused, the name did not resolve, TLS failed, or the connection broke
// before a status line.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("mcp: cannot reach %s: %v", e.URL, oneLine(e.Err.Error()))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// HTTPError is an HTTP status the transport does not expect for the
// request: anything but 200 for a request, anything but 2xx for a
// notification or response, and 404 other than on a session.
type HTTPError struct {
	Op         string // the JSON-RPC method, e.g. `tools/call "echo"`
	StatusCode int
	Body       string // the start of the response body, on one line
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("mcp: %s: HTTP %d %s", e.Op, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// RPCError is a JSON-RPC error response from the server, whatever the
// HTTP status it came with.
type RPCError struct {
	Op      string
	Code    int
	Message string
	Data    json.RawMessage // absent when the server sent none
}

// JSON-RPC error codes the client sends or commonly receives.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

func (e *RPCError) Error() string {
	return fmt.Sprintf("mcp: %s: server error %d: %s", e.Op, e.Code, oneLine(e.Message))
}

// ProtocolError means the server's answer broke the protocol: malformed
// JSON or SSE, a wrong Content-Type, a result of the wrong shape, or a
// stream that ended before the response. Where locates it, e.g.
// "response body at byte 17" or `SSE event 2 (id "5")`.
type ProtocolError struct {
	Op    string
	Where string
	Err   error
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("mcp: %s: bad response (%s): %v", e.Op, e.Where, oneLine(e.Err.Error()))
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// ErrStreamEnded is wrapped in the ProtocolError returned when an SSE
// response stream ends or breaks off (and cannot be resumed) before it
// carries the response. Where says how far it got ("SSE stream after 2
// events, broken off"); a read error that broke it off is in the text.
var ErrStreamEnded = errors.New("stream ended before the response")

// TooLargeError means the answer to one request (the whole JSON body, or
// every byte of its SSE stream including notifications) exceeded
// Options.MaxResponseBytes.
type TooLargeError struct {
	Op    string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("mcp: %s: response larger than the %d-byte limit", e.Op, e.Limit)
}

// SessionExpiredError means the server answered 404 to the session the
// client had just re-initialized after a first 404.
type SessionExpiredError struct {
	Op string
}

func (e *SessionExpiredError) Error() string {
	return fmt.Sprintf("mcp: %s: session not found (HTTP 404) again right after re-initializing", e.Op)
}

// ErrInputRequired is wrapped in the error returned when a 2026-07-28
// server answers with resultType "input_required", asking the client for
// more input (a multi-round-trip request), which this client cannot give.
var ErrInputRequired = errors.New("the server asks for more input, which this client cannot give")

// ErrClosed is returned by calls on a Client after Close.
var ErrClosed = errors.New("mcp: client is closed")

// oneLine collapses runs of white space, line breaks included, so that an
// error from a server prints as one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// excerpt is the start of a response body for an error message.
func excerpt(b []byte) string {
	const max = 200
	s := oneLine(strings.ToValidUTF8(string(b), "\uFFFD"))
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}
