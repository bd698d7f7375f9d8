package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// TraceJSON returns the bundle's interaction_trace exactly as it appears in
// the bundle bytes: what the bundle's hash covers. Re-encoding
// f.Bundle.Trace instead would cost seconds for a 10 MB trace in
// WebAssembly.
func (f BundleFile) TraceJSON() ([]byte, error) {
	r, err := f.TraceRef()
	if err != nil {
		return nil, err
	}
	return f.Data[r.Start:r.End], nil
}

// TraceRef says where a stored trace's bytes are: Data[Start:End] of the
// stored bundle whose content hash is Bundle. The stores keep a trace as
// this reference rather than as a second copy of bytes its bundle already
// holds, which halved what an import of a 10 MB bundle writes
// (docs/perf/app-import.md).
type TraceRef struct {
	SkillID string `json:"skill_id"`
	TraceID string `json:"trace_id"`
	Bundle  string `json:"bundle"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
}

// TraceRef returns where f's trace lies in f.Data.
func (f BundleFile) TraceRef() (TraceRef, error) {
	r := TraceRef{SkillID: f.Bundle.SkillID, TraceID: f.Bundle.Trace.TraceID, Bundle: f.Bundle.ContentHash}
	// The constructor's parse found the trace already: its bytes are a
	// slice of Data, so their offset is what Data's capacity has beyond
	// theirs (checked, since Data may have been replaced since).
	if f.trace != nil && len(f.Data) == len(f.traceIn) && len(f.Data) > 0 && &f.Data[0] == &f.traceIn[0] {
		start := cap(f.Data) - cap(f.trace)
		if end := start + len(f.trace); start >= 0 && end <= len(f.Data) && len(f.trace) > 0 && &f.Data[start] == &f.trace[0] {
			r.Start, r.End = start, end
			return r, nil
		}
	}
	start, end, err := memberSpan(f.Data, "interaction_trace")
	if err != nil {
		return TraceRef{}, fmt.Errorf("bundle bytes: interaction_trace: %w", err)
	}
	r.Start, r.End = start, end
	return r, nil
}

// In returns the trace's bytes in data, the bytes of the bundle r names.
func (r TraceRef) In(data []byte) ([]byte, error) {
	if r.Start < 0 || r.End < r.Start || r.End > len(data) {
		return nil, fmt.Errorf("trace %s lies at bytes %d to %d of bundle %s, which has %d bytes", r.TraceID, r.Start, r.End, r.Bundle, len(data))
	}
	return data[r.Start:r.End], nil
}

// FindTrace returns where the first of bundles that carries trace traceID
// holds it, and false when none does. A store uses it to keep a trace
// whose bundle it removes but another stored bundle still carries.
func FindTrace(traceID string, bundles []StoredBundle) (TraceRef, bool) {
	for _, b := range bundles {
		start, end, err := memberSpan(b.Data, "interaction_trace")
		if err != nil {
			continue
		}
		raw, err := rawMember(b.Data[start:end], "trace_id")
		var id string
		if err != nil || json.Unmarshal(raw, &id) != nil || id != traceID {
			continue
		}
		return TraceRef{SkillID: b.SkillID, TraceID: traceID, Bundle: b.ContentHash, Start: start, End: end}, true
	}
	return TraceRef{}, false
}

var errNoMember = errors.New("no such member")

// rawMember returns the bytes of the value of member name of the object
// that data holds. data is a JSON document already checked strictly (by
// skill.Decode); rawMember still reports, rather than trusts, a document
// that is cut short or is not an object.
func rawMember(data []byte, name string) ([]byte, error) {
	start, end, err := memberSpan(data, name)
	if err != nil {
		return nil, err
	}
	return data[start:end], nil
}

// memberSpan is rawMember's value as its place in data: data[start:end].
func memberSpan(data []byte, name string) (start, end int, err error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return 0, 0, errors.New("the document is not a JSON object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return 0, 0, errNoMember
	}
	for i < len(data) {
		ke, err := skipString(data, i)
		if err != nil {
			return 0, 0, err
		}
		key := data[i:ke]
		var k string
		if bytes.IndexByte(key, '\\') < 0 {
			k = string(key[1 : len(key)-1])
		} else if err := json.Unmarshal(key, &k); err != nil {
			return 0, 0, fmt.Errorf("member name at byte %d: %w", i, err)
		}
		i = skipSpace(data, ke)
		if i >= len(data) || data[i] != ':' {
			return 0, 0, fmt.Errorf("byte %d: want ':'", i)
		}
		vs := skipSpace(data, i+1)
		ve, err := skipValue(data, vs)
		if err != nil {
			return 0, 0, err
		}
		if k == name {
			return vs, ve, nil
		}
		i = skipSpace(data, ve)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		case i < len(data) && data[i] == '}':
			return 0, 0, errNoMember
		default:
			return 0, 0, fmt.Errorf("byte %d: want ',' or '}'", i)
		}
	}
	return 0, 0, errors.New("the document ends inside the object")
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at data[i].
func skipString(data []byte, i int) (int, error) {
	if i >= len(data) || data[i] != '"' {
		return 0, fmt.Errorf("byte %d: want a string", i)
	}
	for j := i + 1; j < len(data); {
		n := bytes.IndexAny(data[j:], `"\`)
		if n < 0 {
			break
		}
		j += n
		if data[j] == '"' {
			return j + 1, nil
		}
		j += 2 // an escape: the next byte is never the closing quote
	}
	return 0, fmt.Errorf("byte %d: unterminated string", i)
}

// skipValue returns the index after the value that starts at data[i].
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errors.New("the document ends where a value was expected")
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				e, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, fmt.Errorf("byte %d: unterminated %c", i, data[i])
	}
	j := i
	for j < len(data) && strings.IndexByte(",}] \t\n\r", data[j]) < 0 {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("byte %d: want a value", i)
	}
	return j, nil
}
