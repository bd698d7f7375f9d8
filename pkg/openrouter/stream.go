package openrouter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strings"

	"workbench/pkg/sse"
)

// ChatStream sends req with "stream": true, calls fn with each increment as
// it arrives, and returns the completion reassembled from the stream: text
// concatenated, tool-call fragments joined by their index, usage and cost
// from the event that carried them (the last one).
//
// The stream is read as server-sent events: comments (OpenRouter's
// ": OPENROUTER PROCESSING" keep-alives) are skipped, multi-line data is
// joined, and "data: [DONE]" ends it. A stream that ends or breaks off
// without [DONE], or whose choices have no finish_reason by then, is a
// *CutError (the deltas before it have been delivered, but no Response is
// returned). An error event during generation is an *APIError with
// Midstream set; the deltas before it have been delivered.
//
// An error returned by fn stops the stream and is returned, wrapped. When
// ctx ends the read stops and the error wraps ctx.Err(). fn may be nil.
func (c *Client) ChatStream(ctx context.Context, req Request, fn func(Delta) error) (*Response, error) {
	body, err := encodeRequest(req, true)
	if err != nil {
		return nil, err
	}
	const op = "POST /chat/completions (stream)"
	var resp *http.Response
	var hreq *http.Request
	// Each attempt has its own per-request limit, which for the attempt
	// that starts the stream bounds the whole stream.
	rctx, cancel := ctx, context.CancelFunc(func() {})
	defer func() { cancel() }()
	// Only getting the stream started is retried: once an event has been
	// handed to fn, a retry would hand it over again.
	err = c.retrying(ctx, func() error {
		var err error
		cancel()
		rctx, cancel = c.bound(ctx)
		hreq, err = c.newRequest(rctx, http.MethodPost, "/chat/completions", body)
		if err != nil {
			return err
		}
		resp, err = c.send(hreq, op)
		return err
	})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()

	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		// Some failures come back as one JSON document even when a stream
		// was asked for.
		raw, err := readCapped(resp.Body, MaxResponseBytes)
		if err != nil {
			return nil, c.readError(hreq, op, len(raw), err)
		}
		if obj, ok := decodeErrorObject(raw); ok {
			return nil, c.key.apiError(midstream(obj))
		}
		return nil, c.key.malformed(&MalformedError{Reason: fmt.Sprintf("a stream was asked for but the reply is %q, not text/event-stream", resp.Header.Get("Content-Type")), Snippet: snippet(raw)})
	}

	var a assembly
	got := &counting{r: resp.Body}
	sr := sse.NewReader(got)
	sr.SetMaxEventBytes(MaxEventBytes)
	for n := 1; ; n++ {
		ev, err := sr.Next()
		if err != nil {
			if ctxErr := ctxError(rctx); ctxErr != nil {
				return nil, c.key.transport(op+": reading the stream", ctxErr)
			}
			if errors.Is(err, sse.ErrTooLarge) {
				return nil, c.key.malformed(&MalformedError{Where: fmt.Sprintf("stream event %d", n), Reason: err.Error(), Usage: a.usage})
			}
			// The stream ended, cleanly or not, before [DONE]: whether
			// the connection broke off or a host in between ended the
			// body for it, the end is missing.
			cut := &CutError{Op: op, Bytes: got.n, Events: sr.Events(), Reason: "the stream ended without data: [DONE]", Usage: a.usage}
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				cut.Err = err
			}
			return nil, c.key.cut(cut)
		}
		if ev.Type != "" && ev.Type != "message" {
			continue
		}
		if strings.TrimSpace(ev.Data) == "[DONE]" {
			break
		}
		var chunk wireResponse
		if err := json.Unmarshal([]byte(ev.Data), &chunk); err != nil {
			return nil, c.key.malformed(&MalformedError{Where: strings.TrimSpace(fmt.Sprintf("stream event %d %s", n, jsonWhere(err))), Reason: "not a chat completion chunk: " + err.Error(), Snippet: snippet([]byte(ev.Data)), Usage: a.usage, Err: err})
		}
		deltas, err := a.add(&chunk, n)
		if err != nil {
			var me *MalformedError
			if errors.As(err, &me) {
				return nil, c.key.malformed(me)
			}
			var ae *APIError
			if errors.As(err, &ae) {
				return nil, c.key.apiError(ae)
			}
			return nil, err
		}
		if fn == nil {
			continue
		}
		for _, d := range deltas {
			if err := fn(d); err != nil {
				return nil, fmt.Errorf("openrouter: stream stopped by the callback: %w", err)
			}
		}
	}
	out := a.response()
	if err := checkResponse(out, " (reassembled from the stream)"); err != nil {
		err.Usage = a.usage
		return nil, c.key.malformed(err)
	}
	for _, ch := range out.Choices {
		if ch.FinishReason == "" {
			// OpenRouter ends every choice with a finish_reason; a stream
			// whose [DONE] comes without one lost the model's end.
			return nil, c.key.cut(&CutError{Op: op, Bytes: got.n, Events: sr.Events(), Usage: a.usage,
				Reason: fmt.Sprintf("choice %d has no finish_reason by data: [DONE]; the model's end is missing", ch.Index)})
		}
	}
	return out, nil
}

// counting counts the bytes read through it.
type counting struct {
	r io.Reader
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// wireDelta is a chunk's delta as sent.
type wireDelta struct {
	Role      string          `json:"role"`
	Content   *string         `json:"content"`
	Refusal   *string         `json:"refusal"`
	ToolCalls []wireToolDelta `json:"tool_calls"`
}

type wireToolDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// assembly accumulates a stream into a Response.
type assembly struct {
	id, model, provider string
	created             int64
	choices             map[int]*choiceAsm
	usage               *Usage
}

type choiceAsm struct {
	role              string
	content, refusal  strings.Builder
	calls             map[int]*ToolCall
	finish, nativeFin string
}

// add folds in chunk n of the stream and returns the deltas to hand to the
// callback.
func (a *assembly) add(ch *wireResponse, n int) ([]Delta, error) {
	// Paths are built only for an error: this runs for every event.
	bad := func(i int, rest, reason string) error {
		return &MalformedError{Where: fmt.Sprintf("stream event %d /choices/%d%s", n, i, rest), Reason: reason, Usage: a.usage}
	}
	if a.id == "" {
		a.id, a.model, a.provider, a.created = ch.ID, ch.Model, ch.Provider, ch.Created
	}
	if ch.Usage != nil {
		a.usage = ch.Usage
	}
	if ch.Error != nil {
		e := midstream(ch.Error)
		e.Usage = a.usage
		return nil, e
	}
	if a.choices == nil {
		a.choices = map[int]*choiceAsm{}
	}
	var out []Delta
	for i, wc := range ch.Choices {
		if wc.Error != nil {
			e := midstream(wc.Error)
			e.Usage = a.usage
			return nil, e
		}
		if wc.Index < 0 {
			return nil, bad(i, "/index", fmt.Sprintf("negative index %d", wc.Index))
		}
		c := a.choices[wc.Index]
		if c == nil {
			c = &choiceAsm{calls: map[int]*ToolCall{}}
			a.choices[wc.Index] = c
		}
		d := Delta{Choice: wc.Index}
		if wd := wc.Delta; wd != nil {
			if wd.Role != "" {
				c.role = wd.Role
			}
			if wd.Content != nil {
				c.content.WriteString(*wd.Content)
				d.Content = *wd.Content
			}
			if wd.Refusal != nil {
				c.refusal.WriteString(*wd.Refusal)
				d.Refusal = *wd.Refusal
			}
			for j, td := range wd.ToolCalls {
				q := func(field string) string { return fmt.Sprintf("/delta/tool_calls/%d/%s", j, field) }
				if td.Index == nil {
					return nil, bad(i, q("index"), "missing; fragments cannot be joined without it")
				}
				k := *td.Index
				if k < 0 {
					return nil, bad(i, q("index"), fmt.Sprintf("negative index %d", k))
				}
				tc := c.calls[k]
				if tc == nil {
					tc = &ToolCall{}
					c.calls[k] = tc
				}
				switch {
				case td.ID == "" || td.ID == tc.ID:
				case tc.ID == "":
					tc.ID = td.ID
				default:
					return nil, bad(i, q("id"), fmt.Sprintf("%q arrives for index %d, which already belongs to %q", td.ID, k, tc.ID))
				}
				if td.Type != "" {
					tc.Type = td.Type
				}
				// The name normally comes whole in the first fragment; a
				// provider that repeats it is tolerated, one that splits
				// it is joined.
				if n := td.Function.Name; n != "" && n != tc.Function.Name {
					tc.Function.Name += n
				}
				tc.Function.Arguments += td.Function.Arguments
				d.ToolCalls = append(d.ToolCalls, ToolCallDelta{Index: k, ID: td.ID, Name: td.Function.Name, Arguments: td.Function.Arguments})
			}
		}
		if wc.FinishReason != nil && *wc.FinishReason != "" {
			c.finish = *wc.FinishReason
			d.FinishReason = c.finish
		}
		if wc.NativeFinishReason != nil && *wc.NativeFinishReason != "" {
			c.nativeFin = *wc.NativeFinishReason
		}
		if d.Content != "" || d.Refusal != "" || len(d.ToolCalls) > 0 || d.FinishReason != "" {
			out = append(out, d)
		}
	}
	if ch.Usage != nil {
		u := *ch.Usage
		out = append(out, Delta{Usage: &u})
	}
	return out, nil
}

func (a *assembly) response() *Response {
	r := &Response{ID: a.id, Model: a.model, Provider: a.provider, Created: a.created}
	if a.usage != nil {
		r.Usage = *a.usage
	}
	idx := make([]int, 0, len(a.choices))
	for i := range a.choices {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		c := a.choices[i]
		m := Message{Role: c.role, Content: c.content.String(), Refusal: c.refusal.String()}
		if m.Role == "" {
			m.Role = RoleAssistant
		}
		ks := make([]int, 0, len(c.calls))
		for k := range c.calls {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		for _, k := range ks {
			m.ToolCalls = append(m.ToolCalls, *c.calls[k])
		}
		r.Choices = append(r.Choices, Choice{Index: i, Message: m, FinishReason: c.finish, NativeFinishReason: c.nativeFin})
	}
	return r
}
