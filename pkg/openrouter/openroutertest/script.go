package openroutertest

import (
	"encoding/json"
	"fmt"
	"time"
)

// Script is how one model behaves: each chat completion request naming
// Model consumes the next of Steps, in arrival order.
type Script struct {
	// Model is the model id requests name, e.g. "x/y".
	Model string
	Steps []Step
	// CostPerCall is the usage.cost of each completion the model gives
	// (in credits, i.e. US dollars). Errors cost nothing.
	CostPerCall float64
	// Provider is the "provider" member of replies; empty means
	// "OpenRouterTest".
	Provider string
}

// Step is one scripted reply. Build it with Answer, Refuse, ToolCall,
// ToolCalls, ToolCallRaw, Error, RateLimit, MidstreamError, Malformed,
// Hang or Func; CutOff breaks any of them off.
type Step struct {
	kind    stepKind
	text    string
	calls   []Call
	status  int
	code    string
	after   time.Duration
	raw     string
	fn      func(*ChatRequest) Step
	summary string
	cut     int // CutOff: bytes of the body sent before the break; 0 for a whole reply
}

type stepKind int

const (
	stepAnswer stepKind = iota + 1
	stepRefuse
	stepToolCalls
	stepError
	stepRateLimit
	stepMidstream
	stepMalformed
	stepFunc
	stepHang
)

// String says what the step does, for test messages.
func (s Step) String() string { return s.summary }

// Call is one tool call of a ToolCalls step. Args is marshalled to JSON;
// RawArgs, when non-empty, is sent as the arguments string verbatim
// instead (to script arguments that are not valid JSON).
type Call struct {
	Name    string
	Args    any
	RawArgs string
}

// Answer replies with text and finish_reason "stop".
func Answer(text string) Step {
	return Step{kind: stepAnswer, text: text, summary: fmt.Sprintf("Answer(%q)", text)}
}

// Refuse replies with a refusal: content null, refusal text, finish_reason
// "stop", as OpenAI-format providers report a model declining.
func Refuse(text string) Step {
	return Step{kind: stepRefuse, text: text, summary: fmt.Sprintf("Refuse(%q)", text)}
}

// ToolCall replies with one call of the function name with args (marshalled
// to a JSON object) and finish_reason "tool_calls".
func ToolCall(name string, args any) Step {
	return ToolCalls(Call{Name: name, Args: args})
}

// ToolCallRaw replies with one call whose arguments string is rawArgs
// verbatim, which need not be JSON.
func ToolCallRaw(name, rawArgs string) Step {
	return ToolCalls(Call{Name: name, RawArgs: rawArgs})
}

// ToolCalls replies with several tool calls in one message.
func ToolCalls(calls ...Call) Step {
	s := Step{kind: stepToolCalls, summary: "ToolCalls("}
	for i, c := range calls {
		if c.RawArgs == "" {
			b, err := json.Marshal(c.Args)
			if err != nil {
				panic(fmt.Sprintf("openroutertest: arguments of tool call %s: %v", c.Name, err))
			}
			if c.Args == nil {
				b = []byte("{}")
			}
			c.RawArgs = string(b)
		}
		s.calls = append(s.calls, c)
		if i > 0 {
			s.summary += ", "
		}
		s.summary += c.Name + c.RawArgs
	}
	s.summary += ")"
	return s
}

// Error answers with HTTP status and OpenRouter's error body
// {"error":{"code":status,"message":message}}. OpenRouter's error code is
// the HTTP status itself.
func Error(status int, message string) Step {
	return Step{kind: stepError, status: status, text: message, summary: fmt.Sprintf("Error(%d, %q)", status, message)}
}

// RateLimit answers 429 with Retry-After set to after, in whole seconds
// rounded up.
func RateLimit(after time.Duration) Step {
	return Step{kind: stepRateLimit, status: 429, after: after, summary: fmt.Sprintf("RateLimit(%s)", after)}
}

// MidstreamError is a failure after the model started: HTTP 200, an error
// object with a string code (e.g. "server_error") at the top level of the
// reply and finish_reason "error". Streamed, it follows a first chunk and
// ends the stream.
func MidstreamError(code, message string) Step {
	return Step{kind: stepMidstream, code: code, text: message, summary: fmt.Sprintf("MidstreamError(%q, %q)", code, message)}
}

// Malformed answers 200 with raw as the body verbatim: the whole JSON body,
// or, when the request streams, the whole text/event-stream body.
func Malformed(raw string) Step {
	return Step{kind: stepMalformed, raw: raw, summary: fmt.Sprintf("Malformed(%q)", raw)}
}

// Hang never answers: the request is held without a status line or a
// byte until the client gives up (closes its connection) or the server is
// closed. It is a server that accepted the connection and then stalled,
// for testing a client's timeouts.
func Hang() Step {
	return Step{kind: stepHang, summary: "Hang()"}
}

// Func decides the reply from the request, e.g. to call a tool with a
// value read from the last tool result, so that a replayed model "reads"
// new input. fn runs on the server's goroutine; it may call t.Error but
// not t.Fatal.
func Func(fn func(*ChatRequest) Step) Step {
	return Step{kind: stepFunc, fn: fn, summary: "Func(…)"}
}

// CutOff is s broken off on the wire: the reply is written as s writes
// it — status, headers and, for a non-streamed reply, the Content-Length
// of its whole body — but after keep bytes of the body the connection
// is closed, without the rest and, for a stream, without the chunked
// encoding's last chunk: a connection to OpenRouter failing part way.
// keep must be at least 1 and less than the body's length.
func CutOff(s Step, keep int) Step {
	if keep < 1 {
		panic(fmt.Sprintf("openroutertest: CutOff(%s, %d): keep at least one byte", s, keep))
	}
	s.cut = keep
	s.summary = fmt.Sprintf("CutOff(%s, %d)", s.summary, keep)
	return s
}
