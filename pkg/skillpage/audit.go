package skillpage

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"workbench/pkg/skill"
	"workbench/pkg/words"
)

// Audit is the Audit tab (spec §2.1): the bundle's full glass-box record,
// read from the bundle alone. It holds what is cheap to list; an event's
// data is put into words (EventRowOf) and a step's detail (DetailOf) made
// only when shown, so that opening the tab on a large bundle is quick.
type Audit struct {
	// Steps are the trace's edges, one line each.
	Steps          []Step
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

// AuditOf collects the audit record of b: every step of the trace, every
// authorization block of the trace's edges and of every replay carried in
// a workbench.v1.ReplayExecuted event, and every tool call hash. The
// events are b.Evidence.Events, each made a row by EventRowOf when shown.
func AuditOf(b *skill.Bundle) Audit {
	a := Audit{Steps: StepsOf(b), ToolCalls: b.Evidence.ToolCalls}
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
		v, err := words.CompactJSON(b.Evidence.Authorization[k])
		if err != nil {
			v = "(cannot be shown: " + err.Error() + ")"
		}
		a.Scope = append(a.Scope, KeyValue{Key: k, Value: v})
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
