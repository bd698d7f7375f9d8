package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// TraceJSON returns the bundle's interaction_trace exactly as it appears in
// the bundle bytes. The store keeps these bytes as the trace record rather
// than re-encoding f.Bundle.Trace: re-encoding a 10 MB trace costs seconds
// in WebAssembly, and the bytes are what the bundle's hash covers.
func (f BundleFile) TraceJSON() ([]byte, error) {
	if f.trace != nil && len(f.Data) == len(f.traceIn) && &f.Data[0] == &f.traceIn[0] {
		return f.trace, nil
	}
	raw, err := rawMember(f.Data, "interaction_trace")
	if err != nil {
		return nil, fmt.Errorf("bundle bytes: interaction_trace: %w", err)
	}
	return raw, nil
}

var errNoMember = errors.New("no such member")

// rawMember returns the bytes of the value of member name of the object
// that data holds. data is a JSON document already checked strictly (by
// skill.Decode); rawMember still reports, rather than trusts, a document
// that is cut short or is not an object.
func rawMember(data []byte, name string) ([]byte, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, errors.New("the document is not a JSON object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil, errNoMember
	}
	for i < len(data) {
		ke, err := skipString(data, i)
		if err != nil {
			return nil, err
		}
		key := data[i:ke]
		var k string
		if bytes.IndexByte(key, '\\') < 0 {
			k = string(key[1 : len(key)-1])
		} else if err := json.Unmarshal(key, &k); err != nil {
			return nil, fmt.Errorf("member name at byte %d: %w", i, err)
		}
		i = skipSpace(data, ke)
		if i >= len(data) || data[i] != ':' {
			return nil, fmt.Errorf("byte %d: want ':'", i)
		}
		vs := skipSpace(data, i+1)
		ve, err := skipValue(data, vs)
		if err != nil {
			return nil, err
		}
		if k == name {
			return data[vs:ve], nil
		}
		i = skipSpace(data, ve)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		case i < len(data) && data[i] == '}':
			return nil, errNoMember
		default:
			return nil, fmt.Errorf("byte %d: want ',' or '}'", i)
		}
	}
	return nil, errors.New("the document ends inside the object")
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
