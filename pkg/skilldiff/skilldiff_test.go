package skilldiff

import (
	"math"
	"reflect"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/skill"
)

func manifest(edit func(*skill.Manifest)) skill.Manifest {
	m := skill.Manifest{
		Schema: skill.ManifestSchemaURI, SkillID: "s1", Name: "Find the price", Slug: "find-the-price",
		Description: "Reads a price", Version: 1, BodyChoice: body.KindSimulator,
		Inputs:               []skill.InputSpec{{Name: "query", Type: "string", Required: true}},
		CapabilitiesRequired: []string{skill.CapabilityBrowser},
		CreatedAt:            "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:00Z",
	}
	if edit != nil {
		edit(&m)
	}
	return m
}

func proof(overall string, gates ...string) skill.ProofResult {
	p := skill.ProofResult{OverallVerdict: overall}
	for i := 0; i+1 < len(gates); i += 2 {
		p.ProofGates = append(p.ProofGates, skill.Gate{ID: gates[i], Verdict: gates[i+1]})
	}
	return p
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name       string
		from, to   Version
		wantFields []Field
		wantGates  []Gate
		verdict    Gate
	}{
		{
			name:      "same version",
			from:      Version{1, manifest(nil), proof("pass", skill.GateAuthority, "pass")},
			to:        Version{1, manifest(nil), proof("pass", skill.GateAuthority, "pass")},
			wantGates: []Gate{{skill.GateAuthority, "pass", "pass"}},
			verdict:   Gate{"overall", "pass", "pass"},
		},
		{
			name: "renamed: fields in manifest order, strings unquoted",
			from: Version{1, manifest(nil), proof("pass")},
			to: Version{2, manifest(func(m *skill.Manifest) {
				m.Version, m.UpdatedAt = 2, "2026-01-02T00:00:00Z"
				m.Description, m.Name = "Reads a <price> & more", "Find the price fast"
			}), proof("pass")},
			wantFields: []Field{
				{"name", "Find the price", "Find the price fast"},
				{"description", "Reads a price", "Reads a <price> & more"},
				{"version", "1", "2"},
				{"updated_at", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"},
			},
			verdict: Gate{"overall", "pass", "pass"},
		},
		{
			name: "lists and absent members as compact JSON",
			from: Version{1, manifest(nil), proof("pass")},
			to: Version{2, manifest(func(m *skill.Manifest) {
				m.Inputs = append(m.Inputs, skill.InputSpec{Name: "site", Type: "url"})
				m.CapabilitiesRequired = nil
				m.FallbackBehavior = skill.FallbackContinue
				m.ValidatedAgainst = []skill.Validation{{Model: "m", Fidelity: 1, TS: "2026-01-02T00:00:00Z"}}
			}), proof("pass")},
			wantFields: []Field{
				{"inputs", `[{"name":"query","type":"string","required":true}]`,
					`[{"name":"query","type":"string","required":true},{"name":"site","type":"url","required":false}]`},
				{"validated_against", "", `[{"model":"m","fidelity":1,"ts":"2026-01-02T00:00:00Z"}]`},
				{"fallback_behavior", "", skill.FallbackContinue},
				{"capabilities_required", `["&body.browser"]`, ""},
			},
			verdict: Gate{"overall", "pass", "pass"},
		},
		{
			name: "gates in spec order, unknown ones after by id, missing ones empty",
			from: Version{1, manifest(nil), proof("inconclusive",
				skill.GateContentHash, "pass", skill.GateReplayFidelity, "inconclusive", "gate.zeta", "pass", skill.GateAuthority, "pass")},
			to: Version{2, manifest(nil), proof("fail",
				skill.GateAuthority, "fail", skill.GateReplayFidelity, "pass", skill.GateContentHash, "pass", "gate.alpha", "n/a",
				skill.GateAuthority, "pass")},
			wantGates: []Gate{
				{skill.GateAuthority, "pass", "fail"},
				{skill.GateReplayFidelity, "inconclusive", "pass"},
				{skill.GateContentHash, "pass", "pass"},
				{"gate.alpha", "", "n/a"},
				{"gate.zeta", "pass", ""},
			},
			verdict: Gate{"overall", "inconclusive", "fail"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Compare(tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if d.From != tc.from.Number || d.To != tc.to.Number {
				t.Errorf("From, To = %d, %d", d.From, d.To)
			}
			if !reflect.DeepEqual(d.Fields, tc.wantFields) {
				t.Errorf("fields\n got %q\nwant %q", d.Fields, tc.wantFields)
			}
			if !reflect.DeepEqual(d.Gates, tc.wantGates) {
				t.Errorf("gates\n got %q\nwant %q", d.Gates, tc.wantGates)
			}
			if d.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q", d.Verdict, tc.verdict)
			}
		})
	}
}

func TestGatesChanged(t *testing.T) {
	d := Diff{Gates: []Gate{{"a", "pass", "pass"}, {"b", "pass", "fail"}, {"c", "", "pass"}}}
	if n := d.GatesChanged(); n != 2 {
		t.Errorf("GatesChanged = %d, want 2", n)
	}
}

func TestCompareUnencodable(t *testing.T) {
	m := manifest(func(m *skill.Manifest) { m.RegressionProbes = []any{math.Inf(1)} })
	if _, err := Compare(Version{Number: 1, Manifest: m}, Version{Number: 2, Manifest: manifest(nil)}); err == nil {
		t.Fatal("a manifest holding +Inf compared without error")
	}
}
