package skill

import (
	"encoding/json"
	"fmt"
	"slices"

	"workbench/pkg/canonjson"
)

// StateHash is the hash of a body's encoded state (DESIGN §3): "sha256:"
// over the canonical JSON of the state. Equal states hash equally whatever
// their member order or number spelling.
func StateHash(state any) (string, error) {
	return HashValue(state)
}

// ShapeHash is the shape signature of a state (DESIGN §3): the hash of its
// skeleton, in which every scalar is replaced by its JSON type name and
// every array by the sorted set of its distinct element skeletons. The same
// page layout with other text has the same shape.
func ShapeHash(state any) (string, error) {
	data, err := json.Marshal(state)
	if err != nil {
		return "", fmt.Errorf("shape: %w", err)
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		return "", fmt.Errorf("shape: %w", err)
	}
	sk, err := skeleton(generic)
	if err != nil {
		return "", err
	}
	return HashValue(sk)
}

func skeleton(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			s, err := skeleton(e)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return out, nil
	case []any:
		// Distinct element skeletons, ordered by their canonical bytes so
		// that order and repetition of like elements do not matter.
		seen := map[string]any{}
		for _, e := range t {
			s, err := skeleton(e)
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			c, err := canonjson.Transform(b)
			if err != nil {
				return nil, err
			}
			seen[string(c)] = s
		}
		keys := make([]string, 0, len(seen))
		for k := range seen {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = seen[k]
		}
		return out, nil
	case string:
		return "string", nil
	case float64, json.Number:
		return "number", nil
	case bool:
		return "boolean", nil
	case nil:
		return "null", nil
	}
	return nil, fmt.Errorf("shape: unexpected %T", v)
}
