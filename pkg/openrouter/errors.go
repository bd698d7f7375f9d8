package openrouter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Sentinels an *APIError matches with errors.Is, so callers branch on the
// class of failure without reading status codes.
var (
	// ErrBadKey: the key is missing, invalid or disabled (HTTP 401).
	ErrBadKey = errors.New("openrouter: the API key was refused")
	// ErrOutOfCredit: the account or key has too little credit (HTTP 402).
	ErrOutOfCredit = errors.New("openrouter: out of credit")
	// ErrRateLimited: too many requests (HTTP 429); see APIError.RetryAfter.
	ErrRateLimited = errors.New("openrouter: rate limited")
	// ErrUpstream: OpenRouter or the model's provider failed (HTTP 5xx, or
	// an error reported inside a 200 reply after generation began).
	ErrUpstream = errors.New("openrouter: upstream failure")
)

// ErrNoKey is returned by New for an empty API key.
var ErrNoKey = errors.New("openrouter: no API key")

// APIError is an error OpenRouter (or the proxy in front of it) answered
// with: a non-2xx status with a body {"error":{"code","message","metadata"}},
// or such an error object inside a 200 reply, which is how OpenRouter
// reports a failure after the model has started (Midstream).
//
// Its text never contains the API key.
type APIError struct {
	// Status is the HTTP status; 200 for a Midstream error.
	Status int
	// Code is error.code as sent: OpenRouter's numeric code ("402"), a
	// provider's string code ("server_error"), or the proxy's
	// ("origin_forbidden"). Empty when the body had none.
	Code string
	// Message is error.message, or the start of the body when it was not
	// an error object.
	Message string
	// Metadata is error.metadata verbatim (moderation reasons, provider
	// name, raw provider error …); nil when absent.
	Metadata json.RawMessage
	// RetryAfter is the wait the server asked for in Retry-After, in
	// seconds or as an HTTP date; zero when it gave none.
	RetryAfter time.Duration
	// Midstream is true when the error arrived in a 200 reply.
	Midstream bool
	// Usage is the usage a Midstream error's reply carried, if any: a
	// generation that failed part way may still have been billed.
	Usage *Usage
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("openrouter: ")
	if e.Midstream {
		b.WriteString("error during generation")
	} else {
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Code != "" && e.Code != strconv.Itoa(e.Status) {
		fmt.Fprintf(&b, " (code %s)", e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, "; retry after %s", e.RetryAfter)
	}
	return b.String()
}

// class is the status the error is classified by: the HTTP status, or for
// a midstream error its numeric code when it has one, else 502 (the
// provider failed after the request was accepted).
func (e *APIError) class() int {
	if !e.Midstream {
		return e.Status
	}
	if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 && n <= 599 {
		return n
	}
	return http.StatusBadGateway
}

// Is matches the sentinel for the error's class.
func (e *APIError) Is(target error) bool {
	switch s := e.class(); target {
	case ErrBadKey:
		return s == http.StatusUnauthorized
	case ErrOutOfCredit:
		return s == http.StatusPaymentRequired
	case ErrRateLimited:
		return s == http.StatusTooManyRequests
	case ErrUpstream:
		return s >= 500
	}
	return false
}

// Retryable reports whether the same request may succeed later: a timeout
// (408), a rate limit (429), or the model or its providers being
// unavailable (502, 503). A midstream error is not retryable, since the
// model already produced (and billed) part of a reply.
func (e *APIError) Retryable() bool {
	if e.Midstream {
		return false
	}
	switch e.Status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// RetryAfter returns the wait an *APIError in err's chain asked for.
func RetryAfter(err error) (time.Duration, bool) {
	var e *APIError
	if errors.As(err, &e) && e.RetryAfter > 0 {
		return e.RetryAfter, true
	}
	return 0, false
}

// MalformedError is a reply that is not what OpenRouter documents: not
// JSON, no choices, a tool call without id or name, tool-call arguments
// that are not a JSON object, a stream that breaks off. It says where.
//
// Its text never contains the API key.
type MalformedError struct {
	// Where locates the problem: a JSON pointer into the reply
	// ("/choices/0/message/tool_calls/1/function/arguments"), prefixed
	// with "stream event N " when it is in the Nth event of a stream.
	Where string
	// Reason says what is wrong.
	Reason string
	// Snippet is the start of the offending text, for diagnosis.
	Snippet string
	// Usage is the reply's usage when it could still be read, so that a
	// caller keeping a running cost counts a malformed reply too.
	Usage *Usage
	// Err is the underlying decoding error, if any.
	Err error
}

func (e *MalformedError) Error() string {
	var b strings.Builder
	b.WriteString("openrouter: malformed reply")
	if e.Where != "" {
		b.WriteString(" at ")
		b.WriteString(e.Where)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Snippet != "" {
		fmt.Fprintf(&b, " (got %q)", e.Snippet)
	}
	return b.String()
}

func (e *MalformedError) Unwrap() error { return e.Err }

// CutError is a reply that ended before its end: a body that broke off
// (the connection closed or reset before the last byte, which a proxy in
// between passes on by breaking its own answer off) or ended early (a
// JSON document that stops part way, which a host that cannot break a
// body off passes on as a short body ended cleanly), an event stream
// without "data: [DONE]", or one whose choices never got a
// finish_reason. What arrived is not returned: a part is not the whole.
// It is not a *MalformedError: the model did not send something
// unreadable, the reply was lost on the way, so asking the model again
// about it would be wrong.
//
// Its text never contains the API key.
type CutError struct {
	// Op is the request, e.g. "POST /chat/completions (stream)".
	Op string
	// Bytes is how many bytes of the body arrived before the end.
	Bytes int64
	// Events is how many events of a stream arrived whole; 0 for a
	// body that is not a stream.
	Events int
	// Reason says what is missing.
	Reason string
	// Usage is the usage a stream carried before it was cut, if any: a
	// generation cut on the way may still have been billed.
	Usage *Usage
	// Err is the read error that ended the body, if it broke off.
	Err error
}

func (e *CutError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "openrouter: %s: the reply was cut off after %d bytes", e.Op, e.Bytes)
	if e.Events > 0 {
		fmt.Fprintf(&b, " (%d events)", e.Events)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Err != nil {
		fmt.Fprintf(&b, " (%v)", e.Err)
	}
	return b.String()
}

func (e *CutError) Unwrap() error { return e.Err }

// TimeoutError is a request that outlived the client's per-request limit
// (WithTimeout). It matches context.DeadlineExceeded with errors.Is.
type TimeoutError struct {
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no complete reply within %s, the client's limit for one request", e.Limit)
}

// Is makes a TimeoutError match context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// UnreadableRetries is how many times a caller asks again after a reply
// that could not be read (a *MalformedError) before it gives up with an
// *UnreadableError: garbage, a truncated body or one over the size cap
// seldom turns readable, and each attempt may be billed.
const UnreadableRetries = 2

// UnreadableError is a caller giving up on a model whose replies, several
// in a row, could not be read as chat completions. The client itself
// never returns it: it is for loops that ask again after a
// *MalformedError, so that "the replies were unreadable" is what stops
// them, not a step limit or a missing action.
type UnreadableError struct {
	// Replies is how many unreadable replies came in a row.
	Replies int
	// Last is the last of them.
	Last *MalformedError
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("the model's replies were unreadable: %d in a row could not be read as a chat completion; the last: %v", e.Replies, e.Last)
}

func (e *UnreadableError) Unwrap() error { return e.Last }

// RequestError is a Request the client refuses to send, naming the field.
type RequestError struct {
	Field  string // e.g. "Messages[2].ToolCallID"
	Reason string
}

func (e *RequestError) Error() string {
	return "openrouter: invalid request: " + e.Field + ": " + e.Reason
}

// transportError is a failed round trip, with the key scrubbed from its
// text; Unwrap keeps context.Canceled and friends reachable.
type transportError struct {
	msg string
	err error
}

func (e *transportError) Error() string { return e.msg }
func (e *transportError) Unwrap() error { return e.err }

// snippetLen bounds the text an error quotes from a reply.
const snippetLen = 120

func snippet(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) > snippetLen {
		cut := snippetLen
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// scrubber removes the key from text that came from elsewhere.
type scrubber string

const redacted = "[redacted]"

func (k scrubber) scrub(s string) string {
	if k == "" {
		return s
	}
	return strings.ReplaceAll(s, string(k), redacted)
}

func (k scrubber) apiError(e *APIError) *APIError {
	e.Code = k.scrub(e.Code)
	e.Message = k.scrub(e.Message)
	if len(e.Metadata) > 0 && strings.Contains(string(e.Metadata), string(k)) {
		e.Metadata = json.RawMessage(strconvQuote(k.scrub(string(e.Metadata))))
	}
	return e
}

func (k scrubber) malformed(e *MalformedError) *MalformedError {
	e.Reason = k.scrub(e.Reason)
	e.Snippet = k.scrub(e.Snippet)
	if e.Err != nil && k != "" && strings.Contains(e.Err.Error(), string(k)) {
		e.Err = errors.New(k.scrub(e.Err.Error()))
	}
	return e
}

func (k scrubber) cut(e *CutError) *CutError {
	if e.Err != nil && k != "" && strings.Contains(e.Err.Error(), string(k)) {
		e.Err = errors.New(k.scrub(e.Err.Error()))
	}
	return e
}

func (k scrubber) transport(op string, err error) error {
	// net/http's *url.Error quotes the URL; keep its cause, scrub its text.
	if ue, ok := err.(*url.Error); ok && k != "" && strings.Contains(ue.URL, string(k)) {
		cp := *ue
		cp.URL = k.scrub(cp.URL)
		err = &cp
	}
	return &transportError{msg: k.scrub(fmt.Sprintf("openrouter: %s: %v", op, err)), err: err}
}

// strconvQuote keeps scrubbed metadata valid JSON (as a string).
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
