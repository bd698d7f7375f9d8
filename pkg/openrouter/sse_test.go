package openrouter

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t testing.TB, r io.Reader, max int) ([]sseEvent, int, error) {
	t.Helper()
	sr := newSSEReader(r, max)
	var evs []sseEvent
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return evs, sr.Comments, nil
		}
		if err != nil {
			return evs, sr.Comments, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEParse(t *testing.T) {
	msg := func(data string) sseEvent { return sseEvent{Type: "message", Data: data} }
	tests := []struct {
		name     string
		in       string
		want     []sseEvent
		comments int
	}{
		{"lf", "data: a\n\ndata: b\n\n", []sseEvent{msg("a"), msg("b")}, 0},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []sseEvent{msg("a"), msg("b")}, 0},
		{"cr", "data: a\r\rdata: b\r\r", []sseEvent{msg("a"), msg("b")}, 0},
		{"mixed endings", "data: a\r\n\rdata: b\n\r\n", []sseEvent{msg("a"), msg("b")}, 0},
		{"openrouter comment", ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: {}\n\n", []sseEvent{msg("{}")}, 2},
		{"comment inside an event", "data: a\n: keep-alive\ndata: b\n\n", []sseEvent{msg("a\nb")}, 1},
		{"multi-line data", "data: {\"a\":\ndata: 1}\n\n", []sseEvent{msg("{\"a\":\n1}")}, 0},
		{"only one leading space dropped", "data:  two\n\n", []sseEvent{msg(" two")}, 0},
		{"no space after colon", "data:x\n\n", []sseEvent{msg("x")}, 0},
		{"field without colon", "data\n\n", []sseEvent{msg("")}, 0},
		{"empty data dispatches", "data:\n\n", []sseEvent{msg("")}, 0},
		{"blank lines without data", "\n\n\nevent: x\n\ndata: a\n\n", []sseEvent{msg("a")}, 0},
		{"event type", "event: ping\ndata: a\n\n", []sseEvent{{Type: "ping", Data: "a"}}, 0},
		{"event type resets", "event: ping\ndata: a\n\ndata: b\n\n", []sseEvent{{Type: "ping", Data: "a"}, msg("b")}, 0},
		{"id sticks", "id: 7\ndata: a\n\ndata: b\n\n", []sseEvent{{Type: "message", Data: "a", ID: "7"}, {Type: "message", Data: "b", ID: "7"}}, 0},
		{"id with NUL ignored", "id: a\x00b\ndata: a\n\n", []sseEvent{msg("a")}, 0},
		{"unknown fields ignored", "retry: 10\nfoo: bar\ndata: a\n\n", []sseEvent{msg("a")}, 0},
		{"BOM stripped", "\uFEFFdata: a\n\n", []sseEvent{msg("a")}, 0},
		{"unterminated event discarded", "data: a\n\ndata: b\n", []sseEvent{msg("a")}, 0},
		{"unterminated line discarded", "data: a\n\ndata: b", []sseEvent{msg("a")}, 0},
		{"done", "data: [DONE]\n\n", []sseEvent{msg("[DONE]")}, 0},
		{"colon in value kept", "data: a: b\n\n", []sseEvent{msg("a: b")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, reader := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tt.in)},
				{"byte by byte", iotest.OneByteReader(strings.NewReader(tt.in))},
			} {
				got, comments, err := readAll(t, reader.r, 1<<10)
				if err != nil {
					t.Fatalf("%s: %v", reader.name, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s: events\n got %q\nwant %q", reader.name, got, tt.want)
				}
				if comments != tt.comments {
					t.Errorf("%s: comments = %d, want %d", reader.name, comments, tt.comments)
				}
			}
		})
	}
}

func TestSSELimits(t *testing.T) {
	// One line over the cap.
	_, _, err := readAll(t, strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 64)
	if !errors.Is(err, errEventTooLarge) {
		t.Errorf("long line: err = %v, want errEventTooLarge", err)
	}
	// Many short data lines adding up to more than the cap.
	_, _, err = readAll(t, strings.NewReader(strings.Repeat("data: xxxxxxxx\n", 20)+"\n"), 64)
	if !errors.Is(err, errEventTooLarge) {
		t.Errorf("long event: err = %v, want errEventTooLarge", err)
	}
	// A read error surfaces as itself.
	boom := errors.New("boom")
	_, _, err = readAll(t, io.MultiReader(strings.NewReader("data: a\n"), iotest.ErrReader(boom)), 64)
	if !errors.Is(err, boom) {
		t.Errorf("read error: err = %v, want boom", err)
	}
}

// FuzzSSE checks that how the stream is cut into reads never changes the
// events parsed from it, and that the parser neither panics nor returns
// data it was not given.
func FuzzSSE(f *testing.F) {
	f.Add(": OPENROUTER PROCESSING\n\ndata: {\"a\":1}\n\ndata: [DONE]\n\n", uint8(3))
	f.Add("data: a\r\ndata: b\r\rdata:c\n\n", uint8(1))
	f.Add("\uFEFFevent: x\nid: 1\ndata\n\n", uint8(7))
	f.Fuzz(func(t *testing.T, in string, step uint8) {
		whole, wc, werr := readAll(t, strings.NewReader(in), 256)
		cut, cc, cerr := readAll(t, &chunkReader{s: in, n: int(step%16) + 1}, 256)
		if (werr == nil) != (cerr == nil) {
			t.Fatalf("errors differ: whole %v, chunked %v", werr, cerr)
		}
		if werr == nil && (!reflect.DeepEqual(whole, cut) || wc != cc) {
			t.Fatalf("events differ:\nwhole   %q (%d comments)\nchunked %q (%d comments)", whole, wc, cut, cc)
		}
		for _, ev := range whole {
			for _, line := range strings.Split(ev.Data, "\n") {
				if !strings.Contains(in, line) {
					t.Fatalf("data line %q is not in the input", line)
				}
			}
		}
	})
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}
