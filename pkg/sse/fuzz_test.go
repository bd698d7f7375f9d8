package sse

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzReader checks that any input parses without panicking, that how the
// bytes are split into reads does not change the events (line endings may
// straddle reads), and that re-encoding the events and parsing them again
// gives the same events.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"data: x\n\n",
		"id: 1\r\nevent: message\r\ndata: {}\r\n\r\n",
		"data: a\rdata: b\r\r",
		": c\nretry: 100\nid\ndata\n\n",
		"\xEF\xBB\xBFdata: x\n\ndata: y",
		"id: a\x00\ndata:\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, wr, wend := readAll(bytes.NewReader(in))
		bytewise, br, bend := readAll(iotest.OneByteReader(bytes.NewReader(in)))
		if !reflect.DeepEqual(whole, bytewise) || wend != bend {
			t.Fatalf("split reads differ:\nwhole %q %v\nbytes %q %v", whole, wend, bytewise, bend)
		}
		if wr.LastEventID() != br.LastEventID() || wr.Retry() != br.Retry() {
			t.Fatalf("state differs: %q/%v vs %q/%v", wr.LastEventID(), wr.Retry(), br.LastEventID(), br.Retry())
		}
		if wend != io.EOF && wend != io.ErrUnexpectedEOF {
			t.Fatalf("end = %v", wend)
		}
		// Under a cap the split into reads changes nothing either, and
		// whatever gets through is within it.
		const max = 16
		capped, cend := readCapped(bytes.NewReader(in), max)
		cappedBytewise, cbend := readCapped(iotest.OneByteReader(bytes.NewReader(in)), max)
		if !reflect.DeepEqual(capped, cappedBytewise) || errors.Is(cend, ErrTooLarge) != errors.Is(cbend, ErrTooLarge) {
			t.Fatalf("capped split reads differ:\nwhole %q %v\nbytes %q %v", capped, cend, cappedBytewise, cbend)
		}
		for _, e := range capped {
			if len(e.Data) > max {
				t.Fatalf("event of %d bytes got past a cap of %d", len(e.Data), max)
			}
		}
		if !errors.Is(cend, ErrTooLarge) && !reflect.DeepEqual(capped, whole) {
			t.Fatalf("under the cap the events differ: %q, want %q", capped, whole)
		}
		var enc bytes.Buffer
		var want []Event
		for i, e := range whole {
			if e.ID == "" && i > 0 && whole[i-1].ID != "" {
				return // a reset of the last event ID: Encode cannot write it
			}
			if strings.ContainsAny(e.ID, "\r\n\x00") || strings.ContainsAny(e.Type, "\r\n\x00") || strings.Contains(e.Data, "\r") {
				return // not representable by Encode
			}
			Encode(&enc, e)
			want = append(want, e)
		}
		again, _, end := readAll(&enc)
		if end != io.EOF || !reflect.DeepEqual(again, want) {
			t.Fatalf("re-encoded %q parses to %q (%v), want %q", enc.String(), again, end, want)
		}
	})
}

// readCapped reads every event under a cap of max bytes, and the final error.
func readCapped(r io.Reader, max int) ([]Event, error) {
	sr := NewReader(r)
	sr.SetMaxEventBytes(max)
	var evs []Event
	for {
		e, err := sr.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, e)
	}
}
