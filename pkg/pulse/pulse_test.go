package pulse_test

import (
	"slices"
	"strings"
	"testing"

	"workbench/pkg/pulse"
)

func TestEventType(t *testing.T) {
	cases := []struct {
		token, want, err string
	}{
		{token: "TopologyContext", want: "org.opensentience.pulse.TopologyContext"},
		{token: "OutcomeSignal", want: "org.opensentience.pulse.OutcomeSignal"},
		{token: "SurpriseSignal", want: "org.opensentience.pulse.SurpriseSignal"},
		{token: "ConsolidationEvent", want: "org.opensentience.pulse.ConsolidationEvent"},
		{token: "DeliberationResult", want: "org.opensentience.pulse.DeliberationResult"},
		{token: "ReputationUpdate", want: "org.opensentience.pulse.ReputationUpdate"},
		{token: "workbench.v1.SkillCrystallized", want: "workbench.v1.SkillCrystallized"},
		{token: "workbench.v1.ReplayExecuted", want: "workbench.v1.ReplayExecuted"},
		{token: "workbench.v1.PhaseTransition", want: "workbench.v1.PhaseTransition"},
		{token: "scope.v2.SpatialClaim", want: "scope.v2.SpatialClaim"},
		{token: "pulse.v1.PhaseRetrieve", err: "reserved namespace \"pulse\""},
		{token: "opensentience.v1.Thing", err: "reserved namespace"},
		{token: "os.v1.Thing", err: "reserved namespace"},
		{token: "PhaseRetrieve", err: "neither a canonical token"},
		{token: "outcome_signal", err: "neither"},
		{token: "workbench.SkillCrystallized", err: "neither"},
		{token: "workbench.v1.skillCrystallized", err: "neither"},
		{token: "Workbench.v1.SkillCrystallized", err: "neither"},
		{token: "", err: "neither"},
	}
	for _, c := range cases {
		got, err := pulse.EventType(c.token)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("EventType(%q) = %q, %v; want error containing %q", c.token, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("EventType(%q) = %q, %v; want %q", c.token, got, err, c.want)
		}
		if c.err == "" {
			if tok, ok := pulse.TokenOf(got); !ok || tok != c.token {
				t.Errorf("TokenOf(%q) = %q, %v; want %q", got, tok, ok, c.token)
			}
		}
	}
}

func TestTokenOfRejects(t *testing.T) {
	for _, typ := range []string{
		"org.opensentience.pulse.PhaseRetrieve",      // PULSE has no phase tokens
		"org.opensentience.pulse.outcome_signal.v1",  // the reference server's snake form
		"org.opensentience.pulse.workbench.v1.Thing", // vendor tokens keep their own namespace
		"OutcomeSignal", // a canonical token needs the prefix
		"pulse.v1.Thing",
		"",
	} {
		if tok, ok := pulse.TokenOf(typ); ok {
			t.Errorf("TokenOf(%q) = %q, true", typ, tok)
		}
	}
}

func TestPhases(t *testing.T) {
	want := []pulse.Phase{"retrieve", "route", "act", "learn", "consolidate"}
	if got := pulse.Phases(); !slices.Equal(got, want) {
		t.Errorf("Phases() = %v", got)
	}
	for _, p := range want {
		if !p.Valid() {
			t.Errorf("%s not valid", p)
		}
		if e := pulse.Emits(p); !slices.Contains(e, pulse.TokenPhaseTransition) {
			t.Errorf("%s does not emit its transition: %v", p, e)
		}
	}
	if pulse.Phase("perceive").Valid() || pulse.Emits("perceive") != nil {
		t.Error("perceive is not a phase")
	}
}
