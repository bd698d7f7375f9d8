package openrouter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	Type string // "message" unless the event named another
	Data string // data lines joined with "\n"
	ID   string // last event id seen so far
}

// sseReader parses a text/event-stream as the HTML standard's event-stream
// interpretation describes: lines end in CRLF, LF or CR; a line starting
// with ":" is a comment; "field: value" lines build an event (one leading
// space of the value dropped); several data lines join with "\n"; a blank
// line dispatches the event, unless it has no data. An unterminated event
// at the end of the stream is discarded, as the standard says.
type sseReader struct {
	sc       *bufio.Scanner
	max      int
	started  bool
	lastID   string
	Comments int // comment lines seen, such as ": OPENROUTER PROCESSING"
}

// errEventTooLarge is an event (or line) over the reader's cap.
var errEventTooLarge = errors.New("event larger than the client's limit")

func newSSEReader(r io.Reader, max int) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), max)
	sc.Split(splitSSELines)
	return &sseReader{sc: sc, max: max}
}

// splitSSELines splits at CRLF, LF or lone CR. A CR at the end of the data
// read so far waits for one more byte to tell CR from CRLF.
func splitSSELines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// Next returns the next event, io.EOF at a clean end of stream (any
// unterminated event discarded), or the read error.
func (s *sseReader) Next() (sseEvent, error) {
	var (
		data    strings.Builder
		hasData bool
		typ     string
	)
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(line) == 0 {
			if !hasData {
				typ = ""
				continue
			}
			if typ == "" {
				typ = "message"
			}
			d := data.String()
			return sseEvent{Type: typ, Data: d[:len(d)-1], ID: s.lastID}, nil
		}
		if line[0] == ':' {
			s.Comments++
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "data":
			if data.Len()+len(value)+1 > s.max {
				return sseEvent{}, errEventTooLarge
			}
			data.Write(value)
			data.WriteByte('\n')
			hasData = true
		case "event":
			typ = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.lastID = string(value)
			}
		}
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return sseEvent{}, fmt.Errorf("%w (a line over %d bytes)", errEventTooLarge, s.max)
		}
		return sseEvent{}, err
	}
	return sseEvent{}, io.EOF
}
