// Package sse reads a Server-Sent Events stream (the text/event-stream
// format of the WHATWG HTML standard, "Server-sent events", section
// "Interpreting an event stream").
//
// A Reader turns bytes into events exactly as a browser's EventSource
// would: lines end in CRLF, LF or CR (also when a CRLF pair is split across
// reads); a line starting with a colon is a comment; a field's value loses
// one leading space; "data" lines join with LF; an "id" persists across
// events until replaced and is ignored if it contains NUL; "retry" takes
// only ASCII digits; an event whose data buffer is empty is not dispatched
// (but "data:" with an empty value is an event with empty Data); a leading
// UTF-8 byte order mark is skipped; unknown fields are ignored.
//
// By default the Reader does not limit how much it buffers. When the peer
// is not trusted, cap one event with SetMaxEventBytes, or the whole stream
// by wrapping the source in a reader that caps its size.
//
// The OpenRouter client (streamed chat completions), the MCP client
// (streamable HTTP responses) and the capability HTTP client (run event
// streams) all read their streams with it.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Event is one dispatched event.
type Event struct {
	// ID is the stream's last event ID when the event was dispatched: the
	// most recent "id" field, possibly from an earlier event.
	ID string
	// Type is the "event" field; empty means the default type, "message".
	Type string
	// Data is the event's data lines joined with LF.
	Data string
}

// Reader reads events from a stream. It is not safe for concurrent use.
type Reader struct {
	br     *bufio.Reader
	line   []byte
	skipLF bool // the previous line ended in CR: a following LF belongs to it
	bomChk bool // the byte order mark check is done

	idBuf  string // the "id" field's value, committed at the next blank line
	lastID string
	retry  time.Duration
	events int
	lines  int
	max    int // SetMaxEventBytes; 0 for no cap
}

// ErrTooLarge is what Next's error wraps when an event or a line is over
// the cap set with SetMaxEventBytes.
var ErrTooLarge = errors.New("sse: event over the size limit")

// SetMaxEventBytes caps one event: Next fails with an error wrapping
// ErrTooLarge once the event's data (its lines joined with LF), or any one
// line of the stream (counted whole, field name included, terminator not),
// is over n bytes, instead of buffering whatever the peer sends. Zero or
// less means no cap, the default. The Reader is not usable after that
// error.
func (r *Reader) SetMaxEventBytes(n int) { r.max = max(n, 0) }

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 4096)}
}

// Next returns the next event. At the end of the stream it returns io.EOF,
// or io.ErrUnexpectedEOF when the stream ends inside an event (data, an id
// or a partial line not yet terminated by a blank line); the incomplete
// event is discarded either way, as the standard says. An event or a line
// over the cap (SetMaxEventBytes) is an error wrapping ErrTooLarge. Other
// errors come from the underlying reader.
func (r *Reader) Next() (Event, error) {
	var (
		data    []byte
		hasData bool
		typ     string
		pending bool // fields seen since the last blank line
	)
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && (pending || len(line) > 0) {
				err = io.ErrUnexpectedEOF
			}
			return Event{}, err
		}
		r.lines++
		if len(line) == 0 {
			r.lastID = r.idBuf
			if !hasData {
				// Nothing to dispatch; the standard resets the buffers.
				typ, pending = "", false
				continue
			}
			r.events++
			return Event{ID: r.lastID, Type: typ, Data: string(data)}, nil
		}
		if line[0] == ':' {
			continue // comment
		}
		pending = true
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			if r.max > 0 && len(data) > r.max {
				return Event{}, fmt.Errorf("%w: the event's data is over %d bytes at line %d", ErrTooLarge, r.max, r.lines)
			}
			hasData = true
		case "event":
			typ = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.idBuf = string(value)
			}
		case "retry":
			if ms, ok := digits(value); ok {
				r.retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}

// LastEventID is the most recent "id" field of a completed event (one
// ended by a blank line, dispatched or not): the value a client sends as
// Last-Event-ID when it reconnects.
func (r *Reader) LastEventID() string { return r.lastID }

// Retry is the reconnection time from the most recent valid "retry" field,
// or zero if the stream has not set one.
func (r *Reader) Retry() time.Duration { return r.retry }

// Events is the number of events dispatched so far.
func (r *Reader) Events() int { return r.events }

// Line is the number of lines read so far, for locating errors.
func (r *Reader) Line() int { return r.lines }

// digits parses a non-empty run of ASCII digits, saturating rather than
// overflowing.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < (1<<62)/10 {
			n = n*10 + int64(c-'0')
		}
	}
	return n, true
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// readLine returns the next line without its terminator. At the end of the
// stream it returns the unterminated rest (possibly empty) with io.EOF.
// The returned slice is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	if r.skipLF {
		// Only looked at when the next line is wanted, so an event that
		// ends in CR is dispatched without waiting for another byte.
		r.skipLF = false
		b, err := r.br.Peek(1)
		if err == nil && b[0] == '\n' {
			r.br.Discard(1)
		}
	}
	if !r.bomChk {
		r.bomChk = true
		if b, err := r.br.Peek(len(bom)); err == nil && bytes.Equal(b, bom) {
			r.br.Discard(len(bom))
		} else if err != nil && len(b) > 0 && bytes.HasPrefix(bom, b) {
			// A stream shorter than a BOM that is a prefix of one.
			r.br.Discard(len(b))
		}
	}
	for {
		n := r.br.Buffered()
		if n == 0 {
			if _, err := r.br.Peek(1); err != nil {
				return r.line, err
			}
			n = r.br.Buffered()
		}
		buf, _ := r.br.Peek(n)
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			r.line = append(r.line, buf...)
			r.br.Discard(n)
			if err := r.checkLine(); err != nil {
				return nil, err
			}
			continue
		}
		r.line = append(r.line, buf[:i]...)
		if err := r.checkLine(); err != nil {
			return nil, err
		}
		r.skipLF = buf[i] == '\r'
		r.br.Discard(i + 1)
		return r.line, nil
	}
}

// checkLine fails when the line read so far is over the cap.
func (r *Reader) checkLine() error {
	if r.max > 0 && len(r.line) > r.max {
		return fmt.Errorf("%w: line %d is over %d bytes", ErrTooLarge, r.lines+1, r.max)
	}
	return nil
}

// Encode writes e in the wire format, one "data" line per line of Data,
// LF line endings and a blank line after it. The ID is written only when
// it is not empty, so an empty ID keeps the stream's last event ID as it
// was; an event with empty Data is still written, and still dispatched. Encode is the inverse of Next for events whose Data
// contains no CR and whose ID and Type contain no CR, LF or NUL.
func Encode(w io.Writer, e Event) error {
	var b strings.Builder
	if e.ID != "" {
		b.WriteString("id: " + e.ID + "\n")
	}
	if e.Type != "" {
		b.WriteString("event: " + e.Type + "\n")
	}
	for _, l := range strings.Split(e.Data, "\n") {
		b.WriteString("data: " + l + "\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
