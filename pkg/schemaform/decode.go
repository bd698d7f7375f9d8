package schemaform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// decode parses a schema document into maps, slices, json.Number,
// strings, booleans and nil. Unlike encoding/json it keeps the document
// order of each "properties" object (under orderKey), because a tool's
// author orders its arguments for people: the form shows them that way.
func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, _, err := decodeOrdered(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("offset %d: data after the schema", d.InputOffset())
	}
	return v, nil
}

// maxDepth is encoding/json's own nesting limit.
const maxDepth = 10000

// decodeOrdered returns a value and, for an object, its keys in order.
func decodeOrdered(d *json.Decoder, depth int) (any, []string, error) {
	if depth > maxDepth {
		return nil, nil, fmt.Errorf("offset %d: nested more than %d deep", d.InputOffset(), maxDepth)
	}
	tok, err := d.Token()
	if err != nil {
		return nil, nil, fmt.Errorf("offset %d: %w", d.InputOffset(), err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			var keys []string
			var propOrder []string
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, nil, fmt.Errorf("offset %d: %w", d.InputOffset(), err)
				}
				k := kt.(string)
				if _, dup := m[k]; dup {
					return nil, nil, fmt.Errorf("offset %d: duplicate member %q", d.InputOffset(), k)
				}
				v, sub, err := decodeOrdered(d, depth+1)
				if err != nil {
					return nil, nil, err
				}
				m[k] = v
				keys = append(keys, k)
				if k == "properties" {
					propOrder = sub
				}
			}
			if _, err := d.Token(); err != nil {
				return nil, nil, err
			}
			if _, ok := m["properties"].(map[string]any); ok {
				m[orderKey] = propOrder
			}
			return m, keys, nil
		case '[':
			a := []any{}
			for d.More() {
				v, _, err := decodeOrdered(d, depth+1)
				if err != nil {
					return nil, nil, err
				}
				a = append(a, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, nil, err
			}
			return a, nil, nil
		}
	}
	return tok, nil, nil
}
