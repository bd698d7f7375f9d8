package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// readAll reads every event and the final error.
func readAll(r io.Reader) ([]Event, *Reader, error) {
	sr := NewReader(r)
	var evs []Event
	for {
		e, err := sr.Next()
		if err != nil {
			return evs, sr, err
		}
		evs = append(evs, e)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   []Event
		end    error
		lastID string
		retry  time.Duration
	}{
		{"empty stream", "", nil, io.EOF, "", 0},
		{"one event", "data: hello\n\n", []Event{{Data: "hello"}}, io.EOF, "", 0},
		{"mcp message", "event: message\nid: 7\ndata: {\"jsonrpc\":\"2.0\"}\n\n",
			[]Event{{ID: "7", Type: "message", Data: `{"jsonrpc":"2.0"}`}}, io.EOF, "7", 0},
		{"multi-line data", "data: a\ndata:b\ndata:  c\n\n", []Event{{Data: "a\nb\n c"}}, io.EOF, "", 0},
		{"empty data is an event", "id: p1\ndata:\n\n", []Event{{ID: "p1"}}, io.EOF, "p1", 0},
		{"data without colon", "data\n\n", []Event{{}}, io.EOF, "", 0},
		{"two empty data lines", "data\ndata\n\n", []Event{{Data: "\n"}}, io.EOF, "", 0},
		{"no data is not dispatched", "id: 3\nevent: x\n\ndata: y\n\n", []Event{{ID: "3", Data: "y"}}, io.EOF, "3", 0},
		{"event type resets", "event: a\ndata: 1\n\ndata: 2\n\n",
			[]Event{{Type: "a", Data: "1"}, {Data: "2"}}, io.EOF, "", 0},
		{"id persists", "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
			[]Event{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}, {Data: "c"}}, io.EOF, "", 0},
		{"id with NUL ignored", "id: 1\n\nid: a\x00b\ndata: x\n\n", []Event{{ID: "1", Data: "x"}}, io.EOF, "1", 0},
		{"comments", ": hello\n:\ndata: x\n: between\n\n", []Event{{Data: "x"}}, io.EOF, "", 0},
		{"comment only", ": keepalive\n\n", nil, io.EOF, "", 0},
		{"keep-alive comments between events", ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: {}\n\ndata: [DONE]\n\n",
			[]Event{{Data: "{}"}, {Data: "[DONE]"}}, io.EOF, "", 0},
		{"retry", "retry: 1500\ndata: x\n\n", []Event{{Data: "x"}}, io.EOF, "", 1500 * time.Millisecond},
		{"retry not digits", "retry: 15s\nretry: -1\nretry:\ndata: x\n\n", []Event{{Data: "x"}}, io.EOF, "", 0},
		{"retry kept across events", "retry: 10\n\ndata: x\n\nretry: x\n\n", []Event{{Data: "x"}}, io.EOF, "", 10 * time.Millisecond},
		{"unknown field", "foo: bar\ndata: x\n\n", []Event{{Data: "x"}}, io.EOF, "", 0},
		{"only one space stripped", "data:   x \n\n", []Event{{Data: "  x "}}, io.EOF, "", 0},
		{"colon in value", "data: a:b: c\n\n", []Event{{Data: "a:b: c"}}, io.EOF, "", 0},
		{"field name is case-sensitive", "Data: x\n\n", nil, io.EOF, "", 0},
		{"CRLF", "id: 1\r\ndata: a\r\ndata: b\r\n\r\n", []Event{{ID: "1", Data: "a\nb"}}, io.EOF, "1", 0},
		{"CR", "data: a\rdata: b\r\rdata: c\r\r", []Event{{Data: "a\nb"}, {Data: "c"}}, io.EOF, "", 0},
		{"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\n", []Event{{Data: "a\nb\nc"}}, io.EOF, "", 0},
		{"CR then LF is one line", "data: a\r\n\r\n", []Event{{Data: "a"}}, io.EOF, "", 0},
		{"LF CR is two lines", "data: a\n\rdata: b\n\n", []Event{{Data: "a"}, {Data: "b"}}, io.EOF, "", 0},
		{"BOM skipped", "\xEF\xBB\xBFdata: x\n\n", []Event{{Data: "x"}}, io.EOF, "", 0},
		{"second BOM not skipped", "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n", nil, io.EOF, "", 0},
		{"truncated in data", "data: a\n\ndata: b\n", []Event{{Data: "a"}}, io.ErrUnexpectedEOF, "", 0},
		{"truncated mid-line", "data: a\n\ndata: b", []Event{{Data: "a"}}, io.ErrUnexpectedEOF, "", 0},
		{"truncated id not committed", "id: 1\ndata: a\n\nid: 2\n", []Event{{ID: "1", Data: "a"}}, io.ErrUnexpectedEOF, "1", 0},
		{"blank lines only", "\n\n\r\n", nil, io.EOF, "", 0},
		{"utf-8 data", "data: héllo ✓\n\n", []Event{{Data: "héllo ✓"}}, io.EOF, "", 0},
		{"long line", "data: " + strings.Repeat("x", 20000) + "\n\n", []Event{{Data: strings.Repeat("x", 20000)}}, io.EOF, "", 0},
	}
	for _, tt := range tests {
		for _, chunked := range []bool{false, true} {
			name := tt.name
			var src io.Reader = strings.NewReader(tt.in)
			if chunked {
				name += "/one byte reads"
				src = iotest.OneByteReader(src)
			}
			t.Run(name, func(t *testing.T) {
				got, sr, err := readAll(src)
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("events = %q, want %q", got, tt.want)
				}
				if err != tt.end {
					t.Errorf("end = %v, want %v", err, tt.end)
				}
				if sr.LastEventID() != tt.lastID {
					t.Errorf("LastEventID = %q, want %q", sr.LastEventID(), tt.lastID)
				}
				if sr.Retry() != tt.retry {
					t.Errorf("Retry = %v, want %v", sr.Retry(), tt.retry)
				}
				if sr.Events() != len(tt.want) {
					t.Errorf("Events = %d, want %d", sr.Events(), len(tt.want))
				}
			})
		}
	}
}

// SetMaxEventBytes stops an event, or a line, over the cap with
// ErrTooLarge after delivering the events before it; up to the cap, events
// read as without one.
func TestReaderMaxEventBytes(t *testing.T) {
	const max = 16
	tests := []struct {
		name string
		in   string
		want []Event
		err  error // nil: the stream ends cleanly with io.EOF
	}{
		{"data at the cap", "data: 0123456789\n\n", []Event{{Data: "0123456789"}}, nil},
		{"line at the cap", "data: " + strings.Repeat("x", max-6) + "\n\n", []Event{{Data: strings.Repeat("x", max-6)}}, nil},
		{"joined data at the cap", "data: 0123456\ndata: 01234567\n\n", []Event{{Data: "0123456\n01234567"}}, nil},
		{"joined data over the cap", "data: 0123456\ndata: 012345678\n\n", nil, ErrTooLarge},
		{"many short lines over the cap", "data: a\n" + strings.Repeat("data: bc\n", 8) + "\n", nil, ErrTooLarge},
		{"one line over the cap", "data: ok\n\ndata: " + strings.Repeat("x", max) + "\n\n", []Event{{Data: "ok"}}, ErrTooLarge},
		{"unterminated line over the cap", "data: ok\n\n" + strings.Repeat("x", 3*max), []Event{{Data: "ok"}}, ErrTooLarge},
		{"comment over the cap", ": " + strings.Repeat("x", max) + "\ndata: a\n\n", nil, ErrTooLarge},
		{"events each under the cap", strings.Repeat("data: 0123456789\n\n", 10), slices.Repeat([]Event{{Data: "0123456789"}}, 10), nil},
	}
	for _, tt := range tests {
		for _, chunked := range []bool{false, true} {
			name := tt.name
			var src io.Reader = strings.NewReader(tt.in)
			if chunked {
				name += "/one byte reads"
				src = iotest.OneByteReader(src)
			}
			t.Run(name, func(t *testing.T) {
				sr := NewReader(src)
				sr.SetMaxEventBytes(max)
				var got []Event
				var err error
				for {
					var e Event
					if e, err = sr.Next(); err != nil {
						break
					}
					got = append(got, e)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("events = %q, want %q", got, tt.want)
				}
				switch {
				case tt.err == nil && err != io.EOF:
					t.Errorf("end = %v, want io.EOF", err)
				case tt.err != nil && !errors.Is(err, tt.err):
					t.Errorf("end = %v, want %v", err, tt.err)
				}
			})
		}
	}
}

// An event ended by CR must be delivered without waiting for the next
// byte, which on a live stream may take arbitrarily long.
func TestReaderCRDoesNotWait(t *testing.T) {
	pr, pw := io.Pipe()
	sr := NewReader(pr)
	go pw.Write([]byte("data: x\r\r"))
	e, err := sr.Next()
	if err != nil || e.Data != "x" {
		t.Fatalf("Next = %+v, %v", e, err)
	}
	go func() {
		pw.Write([]byte("\ndata: y\n\n"))
		pw.Close()
	}()
	e, err = sr.Next()
	if err != nil || e.Data != "y" {
		t.Fatalf("second Next = %+v, %v", e, err)
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	sr := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)))
	if e, err := sr.Next(); err != nil || e.Data != "a" {
		t.Fatalf("Next = %+v, %v", e, err)
	}
	if _, err := sr.Next(); err != boom {
		t.Fatalf("err = %v, want %v", err, boom)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	events := []Event{
		{Data: "plain"},
		{ID: "42", Type: "message", Data: `{"a":1}`},
		{ID: "42", Data: ""},
		{ID: "43", Data: "multi\nline\n\ndata\n"},
		{ID: "43", Data: " leading space"},
	}
	var buf bytes.Buffer
	for _, e := range events {
		if err := Encode(&buf, e); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := readAll(&buf)
	if err != io.EOF {
		t.Fatalf("end = %v", err)
	}
	if !reflect.DeepEqual(got, events) {
		t.Errorf("round trip = %q, want %q", got, events)
	}
}

func ExampleReader() {
	stream := "id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\n: a comment\ndata: \"id\":1}\n\n"
	r := NewReader(strings.NewReader(stream))
	for {
		e, err := r.Next()
		if err != nil {
			break
		}
		fmt.Printf("id=%s type=%s data=%s\n", e.ID, e.Type, e.Data)
	}
	// Output:
	// id=1 type=message data={"jsonrpc":"2.0",
	// "id":1}
}
