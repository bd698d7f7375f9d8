package verify

import (
	"slices"
	"strconv"
	"strings"

	"workbench/fixtures"
	"workbench/pkg/canonjson"
	"workbench/pkg/redact"
	"workbench/pkg/skill"
)

// checkStripped resolves each JSON pointer a redaction claims to have
// stripped and splits them into those that hold no content (null or a
// redaction marker) and those that still do. A pointer that resolves to
// nothing counts as stripped: the member is gone.
func checkStripped(doc *canonjson.Document, claimed []string) (stripped, notStripped []string) {
	stripped = []string{}
	for _, ptr := range claimed {
		var v any
		found, err := doc.DecodeAt(ptr, &v)
		switch s, isString := v.(string); {
		case err != nil:
			notStripped = append(notStripped, ptr)
		case !found || v == nil, isString && redact.IsMarker(s):
			stripped = append(stripped, ptr)
		default:
			notStripped = append(notStripped, ptr)
		}
	}
	slices.Sort(stripped)
	return stripped, notStripped
}

// conformance checks the bundle against the pass criteria of the fixture
// scenario its evidence names (spec §8.4). A freeform run names none.
func (v *Verifier) conformance(b *skill.Bundle, p *skill.ProofResult) skill.ConformanceCheck {
	cc := skill.ConformanceCheck{SpecVersion: skill.SpecVersion, FixturesPassed: []string{}, FixturesFailed: []string{}}
	id := b.Evidence.Scenario.ScenarioID
	sc, ok := v.scenarios[id]
	if !ok {
		return cc
	}
	if len(unmetCriteria(b, p, sc)) == 0 {
		cc.FixturesPassed = append(cc.FixturesPassed, id)
	} else {
		cc.FixturesFailed = append(cc.FixturesFailed, id)
	}
	return cc
}

// unmetCriteria lists the pass criteria of sc that the bundle and its
// derived proof do not meet.
func unmetCriteria(b *skill.Bundle, p *skill.ProofResult, sc fixtures.Scenario) []string {
	pc := sc.PassCriteria
	var unmet []string
	if !pc.OverallVerdict.Allows(p.OverallVerdict) {
		unmet = append(unmet, "overall verdict "+p.OverallVerdict+" is not one of "+strings.Join(pc.OverallVerdict, ", "))
	}
	if pc.FidelityLevel != "" && levelRank[p.ReplayResult.FidelityLevel] < levelRank[pc.FidelityLevel] {
		unmet = append(unmet, "fidelity level "+p.ReplayResult.FidelityLevel+" is weaker than "+pc.FidelityLevel)
	}
	for _, sig := range pc.MustEmitSignal {
		if !slices.ContainsFunc(b.Evidence.Events, func(e skill.Event) bool {
			return e.Type == sig || strings.HasSuffix(e.Type, "."+sig)
		}) {
			unmet = append(unmet, "no "+sig+" event")
		}
	}
	for _, c := range pc.MustDeny {
		if !slices.ContainsFunc(p.AuthorityResult.Denials, func(d skill.Denial) bool { return d.Capability == c }) {
			unmet = append(unmet, c+" was not denied")
		}
	}
	if pc.RedactionProfile != "" && b.Evidence.RedactionProfile != pc.RedactionProfile {
		unmet = append(unmet, "redaction profile "+b.Evidence.RedactionProfile+", want "+pc.RedactionProfile)
	}
	if len(pc.MustRedact) > 0 {
		findings, err := redact.Scan(b)
		if err != nil {
			unmet = append(unmet, "cannot scan for secrets: "+err.Error())
		}
		for _, f := range findings {
			if slices.Contains(pc.MustRedact, f.Kind) {
				unmet = append(unmet, f.Kind+" left at "+f.Pointer)
			}
		}
	}
	if pc.MinModels > 0 {
		models := map[string]bool{}
		for _, e := range b.Evidence.Events {
			if e.Type != skill.EventReplayExecuted {
				continue
			}
			if rec, err := e.ReplayRecord(); err == nil && rec.Report.ModelUsed != skill.NoModel {
				models[rec.Report.ModelUsed] = true
			}
		}
		if len(models) < pc.MinModels {
			unmet = append(unmet, "replayed with "+strconv.Itoa(len(models))+" models, fewer than "+strconv.Itoa(pc.MinModels))
		}
	}
	return unmet
}
