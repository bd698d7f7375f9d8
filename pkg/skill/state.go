package skill

import (
	"encoding/json"
	"fmt"

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
	data, err := stateJSON(state)
	if err != nil {
		return "", fmt.Errorf("shape: %w", err)
	}
	doc, err := canonjson.Parse(data, canonjson.Limits{MaxBytes: 1 << 30})
	if err != nil {
		return "", fmt.Errorf("shape: %w", err)
	}
	return HashBytes(doc.AppendSkeleton(nil)), nil
}

// StateHashes returns a state's hash and shape signature from one parse.
func StateHashes(state any) (hash, shape string, err error) {
	data, err := stateJSON(state)
	if err != nil {
		return "", "", fmt.Errorf("state: %w", err)
	}
	doc, err := canonjson.Parse(data, canonjson.Limits{MaxBytes: 1 << 30})
	if err != nil {
		return "", "", fmt.Errorf("state: %w", err)
	}
	buf := doc.AppendCanonical(nil)
	hash = HashBytes(buf)
	return hash, HashBytes(doc.AppendSkeleton(buf[:0])), nil
}

// stateJSON is the JSON text of a state; a body that already encodes its
// state as JSON text hands it over as a json.RawMessage.
func stateJSON(state any) ([]byte, error) {
	if raw, ok := state.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(state)
}
