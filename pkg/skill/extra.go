package skill

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The open objects keep members this build does not know in an Extra map so
// that a bundle written by a newer or another implementation is not silently
// trimmed when it is decoded and encoded again.

type traceFields Trace
type edgeFields Edge
type scenarioFields Scenario

// MarshalJSON writes the trace's known members and its extra members.
func (t Trace) MarshalJSON() ([]byte, error) { return marshalOpen(traceFields(t), t.Extra) }

// UnmarshalJSON reads the known members and keeps the rest in Extra.
func (t *Trace) UnmarshalJSON(b []byte) error {
	return unmarshalOpen(b, (*traceFields)(t), &t.Extra)
}

// MarshalJSON writes the edge's known members and its extra members.
func (e Edge) MarshalJSON() ([]byte, error) { return marshalOpen(edgeFields(e), e.Extra) }

// UnmarshalJSON reads the known members and keeps the rest in Extra.
func (e *Edge) UnmarshalJSON(b []byte) error {
	return unmarshalOpen(b, (*edgeFields)(e), &e.Extra)
}

// MarshalJSON writes the scenario's known members and its extra members.
func (s Scenario) MarshalJSON() ([]byte, error) { return marshalOpen(scenarioFields(s), s.Extra) }

// UnmarshalJSON reads the known members and keeps the rest in Extra.
func (s *Scenario) UnmarshalJSON(b []byte) error {
	return unmarshalOpen(b, (*scenarioFields)(s), &s.Extra)
}

// SetExtra keeps members the trace does not declare (canonjson.Extensible).
func (t *Trace) SetExtra(m map[string]json.RawMessage) { t.Extra = m }

// SetExtra keeps members the edge does not declare (canonjson.Extensible).
func (e *Edge) SetExtra(m map[string]json.RawMessage) { e.Extra = m }

// SetExtra keeps members the scenario does not declare (canonjson.Extensible).
func (s *Scenario) SetExtra(m map[string]json.RawMessage) { s.Extra = m }

func marshalOpen(known any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(known)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, clash := all[k]; clash {
			return nil, fmt.Errorf("extra member %q shadows a known member", k)
		}
		all[k] = v
	}
	return json.Marshal(all)
}

func unmarshalOpen(b []byte, known any, extra *map[string]json.RawMessage) error {
	if err := json.Unmarshal(b, known); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, name := range jsonNames(reflect.TypeOf(known).Elem()) {
		delete(all, name)
	}
	if len(all) == 0 {
		*extra = nil
		return nil
	}
	*extra = all
	return nil
}

// jsonNames lists the JSON member names a struct type encodes.
func jsonNames(t reflect.Type) []string {
	names := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			continue
		}
		names = append(names, name)
	}
	return names
}
