// Package words says the workbench's values to a person: counts with the
// right plural, money in one format, the spec's enum values in words, and
// JSON as it was written (with & and < as themselves), an observation as
// lines a person reads (Snapshot), and long text cut for a collapsed view
// (Clip).
//
// The pages show these strings as text, never as HTML, so JSON that keeps
// < and & unescaped is safe to show: the UI framework escapes text.
//
// Each enum function returns the value itself when it is not one of the
// values it knows, so nothing a bundle says is hidden or renamed into
// something it is not.
package words

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"workbench/pkg/skill"
)

// Count is n and the noun, its plural made by adding "s": "1 edge",
// "2 edges", "0 edges".
func Count(n int, noun string) string {
	return CountOf(n, noun, noun+"s")
}

// CountOf is n and the singular or the plural noun, for nouns whose plural
// is not made by adding "s" ("1 replay" but "2 surprises" works with
// Count; "1 policy", "2 policies" needs CountOf).
func CountOf(n int, singular, plural string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + singular
	}
	return strconv.Itoa(n) + " " + plural
}

// smallestCent is the smallest amount USD writes with digits; anything
// positive below it reads "< $0.000001" rather than a false "$0.00".
const smallestCent = 0.000001

// USD is an amount in US dollars, the one way the workbench writes money:
// at least two decimals, up to six, trailing zeros dropped ("$0.00",
// "$0.002", "$1.50", "$0.000123"). Model calls cost fractions of a cent,
// so two decimals alone would show most of them as $0.00.
func USD(v float64) string {
	neg := v < 0
	if neg {
		v = -v
	}
	if v > 0 && v < smallestCent {
		if neg {
			return "> -$0.000001"
		}
		return "< $0.000001"
	}
	s := strconv.FormatFloat(v, 'f', 6, 64)
	whole, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	for len(frac) < 2 {
		frac += "0"
	}
	out := "$" + whole + "." + frac
	if neg && out != "$0.00" {
		out = "-" + out
	}
	return out
}

// Cost is what model calls cost: USD, and when some reply reported no
// cost (known is false), that the amount is only what the others said.
func Cost(usd float64, known bool) string {
	if known {
		return USD(usd)
	}
	return USD(usd) + " (some replies reported no cost)"
}

// JSON is v as indented JSON with & < > written as themselves (not
// \u0026), for a person to read. It is for showing as text only.
func JSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// CompactJSON is v as JSON on one line, & < > as themselves.
func CompactJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// Status is a ReplayReport status in words: "success", "completed with
// surprises", "halted at edge 3" (the edge from halted_at_edge; "halted"
// when the report names none).
func Status(status string, haltedAt *int) string {
	switch status {
	case skill.StatusSuccess:
		return "success"
	case skill.StatusCompletedWithSurprises:
		return "completed with surprises"
	case skill.StatusHalted:
		if haltedAt == nil {
			return "halted"
		}
		return "halted at edge " + strconv.Itoa(*haltedAt)
	}
	return status
}

// LevelBeside is the fidelity level to show beside a gate's verdict, or ""
// when the level only repeats the verdict: an inconclusive gate whose
// level is inconclusive, a failed gate whose level is failed. A level
// that says more (exact, structural, semantic) or contradicts the verdict
// is kept.
func LevelBeside(verdict, level string) string {
	switch {
	case level == skill.LevelInconclusive && verdict == skill.VerdictInconclusive,
		level == skill.LevelFailed && verdict == skill.VerdictFail:
		return ""
	}
	return level
}

// Match is how a replayed edge matched its recording: "exact",
// "structural", "mismatch", "not run".
func Match(m string) string {
	if m == skill.MatchNotRun {
		return "not run"
	}
	return m
}

// Decision is an authorization decision in words: "allowed", "denied",
// "approval required".
func Decision(d string) string {
	switch d {
	case skill.DecisionAllow:
		return "allowed"
	case skill.DecisionDeny:
		return "denied"
	case skill.DecisionApprovalRequired:
		return "approval required"
	}
	return d
}

// Fallback is a manifest's fallback_behavior in words; "" is the
// default, halting.
func Fallback(f string) string {
	switch f {
	case skill.FallbackHalt, "":
		return "halt on a state hash mismatch"
	case skill.FallbackContinue:
		return "continue past minor differences"
	case skill.FallbackAskUser:
		return "ask the user"
	}
	return f
}

// Profile is a redaction profile in words: "none", "transcript PII",
// "full".
func Profile(p string) string {
	switch p {
	case skill.RedactionTranscriptPII:
		return "transcript PII"
	case skill.RedactionNone, skill.RedactionFull:
		return p
	}
	return p
}

// SurpriseKind is a ReplayReport surprise kind in words: "state hash
// mismatch", "affordance drift", "policy denial", "model refusal",
// "other".
func SurpriseKind(k skill.SurpriseKind) string {
	switch k {
	case skill.KindStateHashMismatch:
		return "state hash mismatch"
	case skill.KindAffordanceDrift:
		return "affordance drift"
	case skill.KindPolicyDeny:
		return "policy denial"
	case skill.KindModelRefusal:
		return "model refusal"
	case skill.KindOther:
		return "other"
	}
	return string(k)
}

// Outcome is an edge's outcome_status in words: "ok", "error", "denied
// by policy".
func Outcome(o string) string {
	if o == skill.OutcomeDenied {
		return "denied by policy"
	}
	return o
}

// YesNo is "yes" or "no".
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Ratio is a fraction such as a replay's fidelity, to at most three
// decimals, trailing zeros dropped: "1", "0.5", "0.667".
func Ratio(f float64) string {
	s := strconv.FormatFloat(f, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Fidelity is a replay's fidelity with the edge counts it rests on, in
// the terms gate.replay_fidelity uses: the edges recorded in the trace,
// the edges the replay attempted, and the edges it committed. When the
// replay attempted every recorded edge: "1 (2 of 2 edges committed)";
// when it halted first: "0 (0 of 1 attempted edge committed; 2 edges
// recorded, 1 not run)".
func Fidelity(f float64, committed, attempted, recorded int) string {
	if attempted == recorded {
		return Ratio(f) + " (" + strconv.Itoa(committed) + " of " + Count(recorded, "edge") + " committed)"
	}
	return Ratio(f) + " (" + strconv.Itoa(committed) + " of " + CountOf(attempted, "attempted edge", "attempted edges") +
		" committed; " + Count(recorded, "edge") + " recorded, " + strconv.Itoa(recorded-attempted) + " not run)"
}
