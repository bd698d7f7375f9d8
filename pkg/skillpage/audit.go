package skillpage

import (
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"

	"workbench/pkg/skill"
)

// Audit is the Audit tab (spec §2.1): the bundle's full glass-box record,
// read from the bundle alone.
type Audit struct {
	Events         []EventRow
	Authorizations []AuthRow
	ToolCalls      []skill.ToolCallHash
	// Scope is evidence.authorization, the authorization in scope for the
	// whole run (policy, approver, principal), as sorted key/value pairs.
	Scope []KeyValue
}

// EventRow is one CloudEvents envelope of evidence.events.
type EventRow struct {
	Type    string
	Time    string
	ID      string
	Summary string // the event's data as compact JSON, cut at SummaryLen
	Full    string // the event's data as indented JSON
}

// AuthRow is one authorization block and where it was decided: during the
// demonstration (Replay == "") or during the replay Replay.
type AuthRow struct {
	Edge   int
	Replay string
	skill.Authorization
}

// KeyValue is one member of an open object, its value as compact JSON.
type KeyValue struct{ Key, Value string }

// SummaryLen is how many characters of an event's data a summary keeps.
const SummaryLen = 200

// AuditOf collects the audit record of b: every event in the order
// recorded, every authorization block of the trace's edges and of every
// replay carried in a workbench.v1.ReplayExecuted event, and every tool
// call hash.
func AuditOf(b *skill.Bundle) Audit {
	a := Audit{ToolCalls: b.Evidence.ToolCalls}
	for _, e := range b.Evidence.Events {
		compact, _ := json.Marshal(e.Data)
		full, _ := json.MarshalIndent(e.Data, "", "  ")
		a.Events = append(a.Events, EventRow{Type: e.Type, Time: e.Time, ID: e.ID, Summary: cut(string(compact), SummaryLen), Full: string(full)})
	}
	for _, e := range b.Trace.Edges {
		if e.Authorization != nil {
			a.Authorizations = append(a.Authorizations, AuthRow{Edge: e.Index, Authorization: *e.Authorization})
		}
	}
	for _, rec := range b.ReplayRecords() {
		for _, e := range rec.Edges {
			if e.Authorization != nil {
				a.Authorizations = append(a.Authorizations, AuthRow{Edge: e.Index, Replay: rec.Report.ReplayID, Authorization: *e.Authorization})
			}
		}
	}
	keys := make([]string, 0, len(b.Evidence.Authorization))
	for k := range b.Evidence.Authorization {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := json.Marshal(b.Evidence.Authorization[k])
		a.Scope = append(a.Scope, KeyValue{Key: k, Value: string(v)})
	}
	return a
}

// cut shortens s to at most n characters, marking the cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s…", string(r[:n]))
}
