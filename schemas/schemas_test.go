package schemas_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"workbench/schemas"
)

func newValidator(t testing.TB) *schemas.Validator {
	t.Helper()
	v, err := schemas.New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return v
}

// readJSON parses a file the way callers are expected to: numbers stay
// json.Number.
func readJSON(t testing.TB, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func testdata(t testing.TB, name string) map[string]any {
	t.Helper()
	return readJSON(t, filepath.Join("testdata", name)).(map[string]any)
}

// minimalBundle assembles a valid bundle from the minimal parts in testdata,
// with one trace edge so that edge rules are reachable.
func minimalBundle(t testing.TB) map[string]any {
	t.Helper()
	trace := testdata(t, "trace.json")
	trace["edges"] = []any{testdata(t, "edge.json")}
	return map[string]any{
		"bundle_version":    "0.1.0",
		"bundle_id":         "01970a3c-5a4e-7b2d-9c1f-000000000001",
		"skill_id":          "01970a3c-5a4e-7b2d-9c1f-3e5d7a9b1c2d",
		"skill_version":     json.Number("1"),
		"created_at":        "2026-05-25T12:34:56Z",
		"workbench_version": "0.1.0",
		"manifest":          testdata(t, "manifest.json"),
		"interaction_trace": trace,
		"proof":             testdata(t, "proof.json"),
		"evidence":          testdata(t, "evidence.json"),
		"content_hash":      "sha256:" + strings.Repeat("ab", 32),
		"signature":         nil,
	}
}

func minimal(t testing.TB, schemaID string) map[string]any {
	t.Helper()
	switch schemaID {
	case schemas.Bundle:
		return minimalBundle(t)
	case schemas.Manifest:
		return testdata(t, "manifest.json")
	case schemas.ReplayReport:
		return testdata(t, "replay-report.json")
	case schemas.Proof:
		return testdata(t, "proof.json")
	case schemas.Evidence:
		return testdata(t, "evidence.json")
	case schemas.Scenario:
		return testdata(t, "scenario.json")
	case schemas.World:
		return testdata(t, "world.json")
	case schemas.Policy:
		return testdata(t, "policy.json")
	}
	// The capability contract's schemas: testdata/capability-<name>.json.
	if name, ok := strings.CutPrefix(schemaID, "https://opensentience.org/spec/workbench-capability-"); ok {
		return testdata(t, "capability-"+strings.TrimSuffix(name, "/v0.1")+".json")
	}
	// The registry's API: testdata/registry-<name>.json.
	if name, ok := strings.CutPrefix(schemaID, "https://opensentience.org/spec/workbench-registry-"); ok {
		return testdata(t, "registry-"+strings.TrimSuffix(name, "/v0.1")+".json")
	}
	t.Fatalf("no minimal instance for %s", schemaID)
	return nil
}

// An edit changes a document in place.
type edit func(t testing.TB, doc any)

// walk returns the container holding the last token of ptr, and that token.
func walk(t testing.TB, doc any, ptr string) (any, string) {
	t.Helper()
	toks := strings.Split(ptr, "/")[1:]
	node := doc
	for _, tok := range toks[:len(toks)-1] {
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(n) {
				t.Fatalf("bad pointer %s at %q", ptr, tok)
			}
			node = n[i]
		default:
			t.Fatalf("bad pointer %s at %q", ptr, tok)
		}
	}
	return node, toks[len(toks)-1]
}

// set sets the member or array element at ptr; "-" appends to an array.
func set(ptr string, val any) edit {
	return func(t testing.TB, doc any) {
		parent, last := walk(t, doc, ptr)
		switch p := parent.(type) {
		case map[string]any:
			p[last] = val
		case []any:
			i, err := strconv.Atoi(last)
			if err != nil {
				t.Fatalf("set %s: not an index", ptr)
			}
			p[i] = val
		default:
			t.Fatalf("set %s: parent is not a container", ptr)
		}
	}
}

// del removes the member at ptr.
func del(ptr string) edit {
	return func(t testing.TB, doc any) {
		parent, last := walk(t, doc, ptr)
		p, ok := parent.(map[string]any)
		if !ok {
			t.Fatalf("del %s: parent is not an object", ptr)
		}
		if _, ok := p[last]; !ok {
			t.Fatalf("del %s: no such member", ptr)
		}
		delete(p, last)
	}
}

// truncate keeps the first n elements of the array at ptr.
func truncate(ptr string, n int) edit {
	return func(t testing.TB, doc any) {
		parent, last := walk(t, doc, ptr)
		p := parent.(map[string]any)
		p[last] = p[last].([]any)[:n]
	}
}

func num(s string) json.Number { return json.Number(s) }

func TestEveryEmbeddedSchemaCompiles(t *testing.T) {
	v := newValidator(t)
	files, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, id := range schemas.IDs() {
		want[id] = true
	}
	if len(files) != len(want) {
		t.Errorf("%d schema files, want one for each of the %d ids", len(files), len(want))
	}
	for _, f := range files {
		doc := readJSON(t, f).(map[string]any)
		id, _ := doc["$id"].(string)
		if !want[id] {
			t.Errorf("%s: $id %q is not one of schemas.IDs()", f, id)
		}
		if s := doc["$schema"]; s != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v, want draft 2020-12", f, s)
		}
		delete(want, id)
	}
	// Each compiled schema answers: a JSON string is no artifact.
	for _, id := range schemas.IDs() {
		err := v.Validate(id, "not an artifact")
		var ve *schemas.ValidationError
		if !errors.As(err, &ve) || ve.Errors[0].Keyword != "type" {
			t.Errorf("%s accepted a string, or failed oddly: %v", id, err)
		}
	}
}

// The schemas avoid anyOf and oneOf: a failed branch is only one way out,
// and reporting it as a field error would mislead a user filling a form.
func TestSchemasUseNoAlternatives(t *testing.T) {
	files, _ := filepath.Glob("*.json")
	for _, f := range files {
		var found []string
		var visit func(path string, n any)
		visit = func(path string, n any) {
			switch n := n.(type) {
			case map[string]any:
				for k, c := range n {
					if k == "anyOf" || k == "oneOf" {
						found = append(found, path+"/"+k)
					}
					visit(path+"/"+k, c)
				}
			case []any:
				for i, c := range n {
					visit(path+"/"+strconv.Itoa(i), c)
				}
			}
		}
		visit("", readJSON(t, f))
		if len(found) > 0 {
			t.Errorf("%s uses %v", f, found)
		}
	}
}

func TestMinimalInstancesValidate(t *testing.T) {
	v := newValidator(t)
	for _, id := range schemas.IDs() {
		if err := v.Validate(id, minimal(t, id)); err != nil {
			t.Errorf("%s: minimal instance rejected:\n%v", id, err)
		}
	}
}

type want struct{ pointer, keyword string }

// TestSpecAllowsWhatOthersWrite holds the schemas to no more than the spec
// asks where another implementation writes something this one does not:
// a slug that is [a-z0-9-]+ (spec §4) but not this workbench's stricter
// kebab-case, and proof.ia_substrate.
func TestSpecAllowsWhatOthersWrite(t *testing.T) {
	v := newValidator(t)
	ia := map[string]any{"version": "0.3", "laws_exercised": []any{"L1", "L11", "L15"}, "families_exercised": []any{"governance", "temporal"}}
	cases := []struct {
		name   string
		schema string
		edits  []edit
	}{
		{"one-character slug", schemas.Manifest, []edit{set("/slug", "a")}},
		{"slug with a leading hyphen", schemas.Manifest, []edit{set("/slug", "-ab")}},
		{"slug with a trailing hyphen", schemas.Manifest, []edit{set("/slug", "ab-")}},
		{"slug with a double hyphen", schemas.Manifest, []edit{set("/slug", "a--b")}},
		{"slug of 200 characters", schemas.Manifest, []edit{set("/slug", strings.Repeat("a", 200))}},
		{"bundle manifest slug with a double hyphen", schemas.Bundle, []edit{set("/manifest/slug", "summarize--repo")}},
		{"proof ia_substrate", schemas.Proof, []edit{set("/ia_substrate", ia)}},
		{"proof ia_substrate with version only", schemas.Proof, []edit{set("/ia_substrate", map[string]any{"version": "0.3"})}},
		{"bundle proof ia_substrate", schemas.Bundle, []edit{set("/proof/ia_substrate", ia)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := minimal(t, tc.schema)
			for _, e := range tc.edits {
				e(t, doc)
			}
			if err := v.Validate(tc.schema, doc); err != nil {
				t.Errorf("rejected:\n%v", err)
			}
		})
	}
}

func TestBrokenInstancesFail(t *testing.T) {
	v := newValidator(t)
	badHash := "sha256:XYZ"
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name   string
		schema string
		edits  []edit
		want   []want
	}{
		// SkillBundle
		{"bundle: missing content_hash", schemas.Bundle, []edit{del("/content_hash")}, []want{{"/content_hash", "required"}}},
		{"bundle: extra member", schemas.Bundle, []edit{set("/signed", false)}, []want{{"/signed", "additionalProperties"}}},
		{"bundle: wrong bundle_version", schemas.Bundle, []edit{set("/bundle_version", "0.2.0")}, []want{{"/bundle_version", "const"}}},
		{"bundle: bad content_hash", schemas.Bundle, []edit{set("/content_hash", badHash)}, []want{{"/content_hash", "pattern"}}},
		{"bundle: uppercase content_hash", schemas.Bundle, []edit{set("/content_hash", "sha256:"+strings.Repeat("AB", 32))}, []want{{"/content_hash", "pattern"}}},
		{"bundle: bad uuid", schemas.Bundle, []edit{set("/skill_id", "skill-1")}, []want{{"/skill_id", "format"}}},
		{"bundle: bad date-time", schemas.Bundle, []edit{set("/created_at", "2026-05-25 12:34")}, []want{{"/created_at", "format"}}},
		{"bundle: skill_version 0", schemas.Bundle, []edit{set("/skill_version", num("0"))}, []want{{"/skill_version", "minimum"}}},
		{"bundle: skill_version fraction", schemas.Bundle, []edit{set("/skill_version", num("1.5"))}, []want{{"/skill_version", "type"}}},
		{"bundle: signature a boolean", schemas.Bundle, []edit{set("/signature", true)}, []want{{"/signature", "type"}}},
		{"bundle: signature object without value", schemas.Bundle, []edit{set("/signature", map[string]any{"algorithm": "Ed25519", "key_id": "sha256:" + strings.Repeat("0", 64), "public_key": strings.Repeat("A", 43) + "="})}, []want{{"/signature/value", "required"}}},
		{"bundle: signature other algorithm", schemas.Bundle, []edit{set("/signature", map[string]any{"algorithm": "RSA", "key_id": "sha256:" + strings.Repeat("0", 64), "public_key": strings.Repeat("A", 43) + "=", "value": strings.Repeat("A", 86) + "=="})}, []want{{"/signature/algorithm", "const"}}},
		{"bundle: manifest slug", schemas.Bundle, []edit{set("/manifest/slug", "Not A Slug")}, []want{{"/manifest/slug", "pattern"}}},
		{"bundle: manifest extra", schemas.Bundle, []edit{set("/manifest/color", "red")}, []want{{"/manifest/color", "additionalProperties"}}},
		{"bundle: proof gate extra", schemas.Bundle, []edit{set("/proof/proof_gates/0/weight", num("1"))}, []want{{"/proof/proof_gates/0/weight", "additionalProperties"}}},
		{"bundle: evidence provider", schemas.Bundle, []edit{set("/evidence/system/provider", "anthropic")}, []want{{"/evidence/system/provider", "const"}}},
		{"bundle: trace outcome", schemas.Bundle, []edit{set("/interaction_trace/outcome", "done")}, []want{{"/interaction_trace/outcome", "enum"}}},
		{"bundle: trace id", schemas.Bundle, []edit{set("/interaction_trace/trace_id", "t1")}, []want{{"/interaction_trace/trace_id", "format"}}},
		{"bundle: trace missing environment", schemas.Bundle, []edit{del("/interaction_trace/environment")}, []want{{"/interaction_trace/environment", "required"}}},
		{"bundle: edge state_after", schemas.Bundle, []edit{set("/interaction_trace/edges/0/state_after", badHash)}, []want{{"/interaction_trace/edges/0/state_after", "pattern"}}},
		{"bundle: edge missing state_before", schemas.Bundle, []edit{del("/interaction_trace/edges/0/state_before")}, []want{{"/interaction_trace/edges/0/state_before", "required"}}},
		{"bundle: edge shape_after", schemas.Bundle, []edit{set("/interaction_trace/edges/0/shape_after", badHash)}, []want{{"/interaction_trace/edges/0/shape_after", "pattern"}}},
		{"bundle: edge capability", schemas.Bundle, []edit{set("/interaction_trace/edges/0/capability", "body.os")}, []want{{"/interaction_trace/edges/0/capability", "pattern"}}},
		{"bundle: edge index", schemas.Bundle, []edit{set("/interaction_trace/edges/0/index", num("-1"))}, []want{{"/interaction_trace/edges/0/index", "minimum"}}},
		{"bundle: edge param source", schemas.Bundle, []edit{set("/interaction_trace/edges/0/param_sources", map[string]any{"url": "model"})}, []want{{"/interaction_trace/edges/0/param_sources/url", "pattern"}}},
		{"bundle: edge params null", schemas.Bundle, []edit{set("/interaction_trace/edges/0/typed_action/params", nil)}, []want{{"/interaction_trace/edges/0/typed_action/params", "type"}}},
		{"bundle: edge authorization decision", schemas.Bundle, []edit{set("/interaction_trace/edges/0/authorization", map[string]any{"block_id": "b", "policy_id": "p", "decision": "maybe"})}, []want{{"/interaction_trace/edges/0/authorization/decision", "enum"}}},
		{"bundle: edge latency", schemas.Bundle, []edit{set("/interaction_trace/edges/0/latency_ms", num("-3"))}, []want{{"/interaction_trace/edges/0/latency_ms", "minimum"}}},

		// SkillManifest
		{"manifest: missing name", schemas.Manifest, []edit{del("/name")}, []want{{"/name", "required"}}},
		{"manifest: empty name", schemas.Manifest, []edit{set("/name", "")}, []want{{"/name", "minLength"}}},
		{"manifest: long name", schemas.Manifest, []edit{set("/name", long(121))}, []want{{"/name", "maxLength"}}},
		{"manifest: wrong schema", schemas.Manifest, []edit{set("/schema", "https://opensentience.org/spec/skill-manifest/v0.2")}, []want{{"/schema", "const"}}},
		{"manifest: extra member", schemas.Manifest, []edit{set("/author", "me")}, []want{{"/author", "additionalProperties"}}},
		{"manifest: empty slug", schemas.Manifest, []edit{set("/slug", "")}, []want{{"/slug", "pattern"}}},
		{"manifest: slug underscore", schemas.Manifest, []edit{set("/slug", "a_b")}, []want{{"/slug", "pattern"}}},
		{"manifest: slug uppercase", schemas.Manifest, []edit{set("/slug", "Ab")}, []want{{"/slug", "pattern"}}},
		{"proof: ia_substrate without version", schemas.Proof, []edit{set("/ia_substrate", map[string]any{"laws_exercised": []any{"L1"}})}, []want{{"/ia_substrate/version", "required"}}},
		{"proof: ia_substrate law", schemas.Proof, []edit{set("/ia_substrate", map[string]any{"version": "0.3", "laws_exercised": []any{"L16"}})}, []want{{"/ia_substrate/laws_exercised/0", "pattern"}}},
		{"proof: ia_substrate family", schemas.Proof, []edit{set("/ia_substrate", map[string]any{"version": "0.3", "families_exercised": []any{"causal"}})}, []want{{"/ia_substrate/families_exercised/0", "enum"}}},
		{"proof: other extra member", schemas.Proof, []edit{set("/ia_substrates", map[string]any{"version": "0.3"})}, []want{{"/ia_substrates", "additionalProperties"}}},
		{"manifest: empty description", schemas.Manifest, []edit{set("/description", "")}, []want{{"/description", "minLength"}}},
		{"manifest: long description", schemas.Manifest, []edit{set("/description", long(2001))}, []want{{"/description", "maxLength"}}},
		{"manifest: version 0", schemas.Manifest, []edit{set("/version", num("0"))}, []want{{"/version", "minimum"}}},
		{"manifest: bad trace id", schemas.Manifest, []edit{set("/derived_from_trace_id", "01970a3c5a4070008000000000000001")}, []want{{"/derived_from_trace_id", "format"}}},
		{"manifest: body", schemas.Manifest, []edit{set("/body_choice", "robot")}, []want{{"/body_choice", "enum"}}},
		{"manifest: binding", schemas.Manifest, []edit{set("/binding", "bound")}, []want{{"/binding", "enum"}}},
		{"manifest: fallback", schemas.Manifest, []edit{set("/fallback_behavior", "retry")}, []want{{"/fallback_behavior", "enum"}}},
		{"manifest: no capabilities", schemas.Manifest, []edit{set("/capabilities_required", []any{})}, []want{{"/capabilities_required", "minItems"}}},
		{"manifest: capability shape", schemas.Manifest, []edit{set("/capabilities_required", []any{"&body.browser", "body.os"})}, []want{{"/capabilities_required/1", "pattern"}}},
		{"manifest: inputs null", schemas.Manifest, []edit{set("/inputs", nil)}, []want{{"/inputs", "type"}}},
		{"manifest: input name", schemas.Manifest, []edit{set("/inputs", []any{map[string]any{"name": "RepoURL", "type": "url", "required": true}})}, []want{{"/inputs/0/name", "pattern"}}},
		{"manifest: input type", schemas.Manifest, []edit{set("/inputs", []any{map[string]any{"name": "when", "type": "date", "required": true}})}, []want{{"/inputs/0/type", "enum"}}},
		{"manifest: input extra", schemas.Manifest, []edit{set("/inputs", []any{map[string]any{"name": "q", "type": "string", "required": true, "default": "x"}})}, []want{{"/inputs/0/default", "additionalProperties"}}},
		{"manifest: input missing required", schemas.Manifest, []edit{set("/inputs", []any{map[string]any{"name": "q", "type": "string"}})}, []want{{"/inputs/0/required", "required"}}},
		{"manifest: output missing type", schemas.Manifest, []edit{set("/outputs", []any{map[string]any{"name": "summary"}})}, []want{{"/outputs/0/type", "required"}}},
		{"manifest: output extra", schemas.Manifest, []edit{set("/outputs", []any{map[string]any{"name": "summary", "type": "string", "format": "md"}})}, []want{{"/outputs/0/format", "additionalProperties"}}},
		{"manifest: fidelity 1.5", schemas.Manifest, []edit{set("/validated_against", []any{map[string]any{"model": "m", "fidelity": num("1.5"), "ts": "2026-05-25T12:00:00Z"}})}, []want{{"/validated_against/0/fidelity", "maximum"}}},
		{"manifest: validation missing ts", schemas.Manifest, []edit{set("/validated_against", []any{map[string]any{"model": "m", "fidelity": num("1")}})}, []want{{"/validated_against/0/ts", "required"}}},
		{"manifest: bad updated_at", schemas.Manifest, []edit{set("/updated_at", "2026-02-30T00:00:00Z")}, []want{{"/updated_at", "format"}}},

		// ReplayReport
		{"replay: fidelity 1.5", schemas.ReplayReport, []edit{set("/fidelity", num("1.5"))}, []want{{"/fidelity", "maximum"}}},
		{"replay: negative fidelity", schemas.ReplayReport, []edit{set("/fidelity", num("-0.1"))}, []want{{"/fidelity", "minimum"}}},
		{"replay: status", schemas.ReplayReport, []edit{set("/status", "halted")}, []want{{"/status", "enum"}}},
		{"replay: halted without edge", schemas.ReplayReport, []edit{set("/status", "halted_at_edge_N")}, []want{{"/halted_at_edge", "required"}}},
		{"replay: halted at null", schemas.ReplayReport, []edit{set("/status", "halted_at_edge_N"), set("/halted_at_edge", nil)}, []want{{"/halted_at_edge", "type"}}},
		{"replay: negative count", schemas.ReplayReport, []edit{set("/edges_committed", num("-1"))}, []want{{"/edges_committed", "minimum"}}},
		{"replay: level", schemas.ReplayReport, []edit{set("/fidelity_level", "perfect")}, []want{{"/fidelity_level", "enum"}}},
		{"replay: bad replay_id", schemas.ReplayReport, []edit{set("/replay_id", "r1")}, []want{{"/replay_id", "format"}}},
		{"replay: bad started_at", schemas.ReplayReport, []edit{set("/started_at", "13:00")}, []want{{"/started_at", "format"}}},
		{"replay: negative cost", schemas.ReplayReport, []edit{set("/cost_usd", num("-0.01"))}, []want{{"/cost_usd", "minimum"}}},
		{"replay: extra", schemas.ReplayReport, []edit{set("/judge", map[string]any{})}, []want{{"/judge", "additionalProperties"}}},
		{"replay: missing evidence_bundle_id", schemas.ReplayReport, []edit{del("/evidence_bundle_id")}, []want{{"/evidence_bundle_id", "required"}}},
		{"replay: input not object", schemas.ReplayReport, []edit{set("/input", "x")}, []want{{"/input", "type"}}},
		{"replay: signal kind", schemas.ReplayReport, []edit{set("/surprise_signals", []any{map[string]any{"edge_index": num("0"), "kind": "weird"}})}, []want{{"/surprise_signals/0/kind", "enum"}}},
		{"replay: signal missing edge", schemas.ReplayReport, []edit{set("/surprise_signals", []any{map[string]any{"kind": "other"}})}, []want{{"/surprise_signals/0/edge_index", "required"}}},
		{"replay: signal surprise_kind", schemas.ReplayReport, []edit{set("/surprise_signals", []any{map[string]any{"edge_index": num("0"), "kind": "other", "surprise_kind": "unexpected"}})}, []want{{"/surprise_signals/0/surprise_kind", "enum"}}},
		{"replay: signal hash", schemas.ReplayReport, []edit{set("/surprise_signals", []any{map[string]any{"edge_index": num("0"), "kind": "state_hash_mismatch", "actual_state_hash": badHash}})}, []want{{"/surprise_signals/0/actual_state_hash", "pattern"}}},
		{"replay: signal magnitude", schemas.ReplayReport, []edit{set("/surprise_signals", []any{map[string]any{"edge_index": num("0"), "kind": "other", "surprise_magnitude": num("2")}})}, []want{{"/surprise_signals/0/surprise_magnitude", "maximum"}}},

		// ProofResult
		{"proof: wrong schema", schemas.Proof, []edit{set("/schema", "proof")}, []want{{"/schema", "const"}}},
		{"proof: extra", schemas.Proof, []edit{set("/signed", true)}, []want{{"/signed", "additionalProperties"}}},
		{"proof: verdict", schemas.Proof, []edit{set("/overall_verdict", "success")}, []want{{"/overall_verdict", "enum"}}},
		{"proof: missing conformance", schemas.Proof, []edit{del("/conformance_check")}, []want{{"/conformance_check", "required"}}},
		{"proof: bad computed_at", schemas.Proof, []edit{set("/computed_at", "now")}, []want{{"/computed_at", "format"}}},
		{"proof: five gates", schemas.Proof, []edit{truncate("/proof_gates", 5)}, []want{{"/proof_gates", "contains"}, {"/proof_gates", "minItems"}}},
		{"proof: gate id", schemas.Proof, []edit{set("/proof_gates/5/id", "gate.magic")}, []want{{"/proof_gates", "contains"}, {"/proof_gates/5/id", "enum"}}},
		{"proof: gate verdict", schemas.Proof, []edit{set("/proof_gates/0/verdict", "ok")}, []want{{"/proof_gates/0/verdict", "enum"}}},
		{"proof: gate level", schemas.Proof, []edit{set("/proof_gates/2/level", "loose")}, []want{{"/proof_gates/2/level", "enum"}}},
		{"proof: gate law", schemas.Proof, []edit{set("/proof_gates/0/law", "L16")}, []want{{"/proof_gates/0/law", "pattern"}}},
		{"proof: gate family", schemas.Proof, []edit{set("/proof_gates/0/invariant_family", "social")}, []want{{"/proof_gates/0/invariant_family", "enum"}}},
		{"proof: gate missing verdict", schemas.Proof, []edit{del("/proof_gates/1/verdict")}, []want{{"/proof_gates/1/verdict", "required"}}},
		{"proof: invariant held", schemas.Proof, []edit{set("/invariant_results", []any{map[string]any{"id": "inv.x", "held": "yes"}})}, []want{{"/invariant_results/0/held", "enum"}}},
		{"proof: invariant id", schemas.Proof, []edit{set("/invariant_results", []any{map[string]any{"id": "every_action", "held": true}})}, []want{{"/invariant_results/0/id", "pattern"}}},
		{"proof: invariant checked_n", schemas.Proof, []edit{set("/invariant_results", []any{map[string]any{"id": "inv.x", "held": false, "checked_n": num("-1")}})}, []want{{"/invariant_results/0/checked_n", "minimum"}}},
		{"proof: invariant extra", schemas.Proof, []edit{set("/invariant_results", []any{map[string]any{"id": "inv.x", "held": "n/a", "why": "x"}})}, []want{{"/invariant_results/0/why", "additionalProperties"}}},
		{"proof: authority decision", schemas.Proof, []edit{set("/authority_result/decision", "approval_required")}, []want{{"/authority_result/decision", "enum"}}},
		{"proof: denial missing reason", schemas.Proof, []edit{set("/authority_result/denials", []any{map[string]any{"capability": "&body.os"}})}, []want{{"/authority_result/denials/0/reason", "required"}}},
		{"proof: redaction profile", schemas.Proof, []edit{set("/redaction_result/profile", "some")}, []want{{"/redaction_result/profile", "enum"}}},
		{"proof: replay status", schemas.Proof, []edit{set("/replay_result/status", "halted_at_edge_N")}, []want{{"/replay_result/status", "enum"}}},
		{"proof: replay missing level", schemas.Proof, []edit{del("/replay_result/fidelity_level")}, []want{{"/replay_result/fidelity_level", "required"}}},
		{"proof: conformance fixture id", schemas.Proof, []edit{set("/conformance_check/fixtures_passed", []any{"basic"})}, []want{{"/conformance_check/fixtures_passed/0", "pattern"}}},

		// EvidenceBundle
		{"evidence: extra", schemas.Evidence, []edit{set("/notes", "x")}, []want{{"/notes", "additionalProperties"}}},
		{"evidence: missing reproducibility", schemas.Evidence, []edit{del("/reproducibility")}, []want{{"/reproducibility", "required"}}},
		{"evidence: scenario without manifest", schemas.Evidence, []edit{del("/scenario/manifest")}, []want{{"/scenario/manifest", "required"}}},
		{"evidence: provider", schemas.Evidence, []edit{set("/system/provider", "openai")}, []want{{"/system/provider", "const"}}},
		{"evidence: byo_key false", schemas.Evidence, []edit{set("/system/byo_key", false)}, []want{{"/system/byo_key", "const"}}},
		{"evidence: capability snapshot", schemas.Evidence, []edit{del("/capability_snapshot/subtypes")}, []want{{"/capability_snapshot/subtypes", "required"}}},
		{"evidence: otel trace id", schemas.Evidence, []edit{set("/trace/trace_id", "01970a3c-5a40-7000-8000-000000000001")}, []want{{"/trace/trace_id", "pattern"}}},
		{"evidence: span id", schemas.Evidence, []edit{set("/trace/spans", []any{map[string]any{"span_id": "xyz", "name": "act", "start_unix_nano": num("1"), "end_unix_nano": num("2")}})}, []want{{"/trace/spans/0/span_id", "pattern"}}},
		{"evidence: span start", schemas.Evidence, []edit{set("/trace/spans", []any{map[string]any{"span_id": "00f067aa0ba902b7", "name": "act", "start_unix_nano": num("-1"), "end_unix_nano": num("2")}})}, []want{{"/trace/spans/0/start_unix_nano", "minimum"}}},
		{"evidence: span beyond I-JSON", schemas.Evidence, []edit{set("/trace/spans", []any{map[string]any{"span_id": "00f067aa0ba902b7", "name": "act", "start_unix_nano": num("1779712496000000000"), "end_unix_nano": num("2")}})}, []want{{"/trace/spans/0/start_unix_nano", "maximum"}}},
		{"evidence: span phase", schemas.Evidence, []edit{set("/trace/spans", []any{map[string]any{"span_id": "00f067aa0ba902b7", "name": "act", "start_unix_nano": num("1"), "end_unix_nano": num("2"), "phase": "think"}})}, []want{{"/trace/spans/0/phase", "enum"}}},
		{"evidence: span parent", schemas.Evidence, []edit{set("/trace/spans", []any{map[string]any{"span_id": "00f067aa0ba902b7", "parent_span_id": "root", "name": "act", "start_unix_nano": num("1"), "end_unix_nano": num("2")}})}, []want{{"/trace/spans/0/parent_span_id", "pattern"}}},
		{"evidence: event specversion", schemas.Evidence, []edit{set("/events", []any{map[string]any{"specversion": "0.3", "id": "1", "source": "/workbench", "type": "workbench.v1.SkillCrystallized", "time": "2026-05-25T12:00:00Z", "data": nil}})}, []want{{"/events/0/specversion", "const"}}},
		{"evidence: event time", schemas.Evidence, []edit{set("/events", []any{map[string]any{"specversion": "1.0", "id": "1", "source": "/workbench", "type": "t", "time": "noon", "data": nil}})}, []want{{"/events/0/time", "format"}}},
		{"evidence: event without data", schemas.Evidence, []edit{set("/events", []any{map[string]any{"specversion": "1.0", "id": "1", "source": "/workbench", "type": "t", "time": "2026-05-25T12:00:00Z"}})}, []want{{"/events/0/data", "required"}}},
		{"evidence: transcript role", schemas.Evidence, []edit{set("/transcript", []any{map[string]any{"turn": num("0"), "role": "bot"}})}, []want{{"/transcript/0/role", "enum"}}},
		{"evidence: transcript turn", schemas.Evidence, []edit{set("/transcript", []any{map[string]any{"turn": num("-1"), "role": "user"}})}, []want{{"/transcript/0/turn", "minimum"}}},
		{"evidence: tool server", schemas.Evidence, []edit{set("/tool_calls", []any{map[string]any{"span_id": "00f067aa0ba902b7", "server": "github", "tool": "x", "request_hash": "sha256:" + strings.Repeat("0", 64), "response_hash": "sha256:" + strings.Repeat("0", 64)}})}, []want{{"/tool_calls/0/server", "enum"}}},
		{"evidence: tool request hash", schemas.Evidence, []edit{set("/tool_calls", []any{map[string]any{"span_id": "00f067aa0ba902b7", "server": "body-browser", "tool": "x", "request_hash": badHash, "response_hash": "sha256:" + strings.Repeat("0", 64)}})}, []want{{"/tool_calls/0/request_hash", "pattern"}}},
		{"evidence: graph uri", schemas.Evidence, []edit{set("/graphonomous_refs", []any{map[string]any{"uri": "https://graph/node/1", "op": "read"}})}, []want{{"/graphonomous_refs/0/uri", "pattern"}}},
		{"evidence: graph op", schemas.Evidence, []edit{set("/graphonomous_refs", []any{map[string]any{"uri": "graphonomous://node/1", "op": "delete"}})}, []want{{"/graphonomous_refs/0/op", "enum"}}},
		{"evidence: ref target", schemas.Evidence, []edit{set("/evidence_refs", []any{map[string]any{"target": "#/trace", "selector": map[string]any{}}})}, []want{{"/evidence_refs/0/target", "format"}}},
		{"evidence: ref selector", schemas.Evidence, []edit{set("/evidence_refs", []any{map[string]any{"target": "urn:x:y"}})}, []want{{"/evidence_refs/0/selector", "required"}}},
		{"evidence: judge", schemas.Evidence, []edit{set("/judge", "good")}, []want{{"/judge", "type"}}},
		{"evidence: redaction profile", schemas.Evidence, []edit{set("/redaction_profile", "partial")}, []want{{"/redaction_profile", "enum"}}},
		{"evidence: workbench version", schemas.Evidence, []edit{del("/reproducibility/workbench_version")}, []want{{"/reproducibility/workbench_version", "required"}}},

		// Fixture scenario
		{"scenario: id", schemas.Scenario, []edit{set("/id", "basic")}, []want{{"/id", "pattern"}}},
		{"scenario: schema", schemas.Scenario, []edit{set("/schema", schemas.Manifest)}, []want{{"/schema", "const"}}},
		{"scenario: extra", schemas.Scenario, []edit{set("/owner", "me")}, []want{{"/owner", "additionalProperties"}}},
		{"scenario: missing purpose", schemas.Scenario, []edit{del("/purpose")}, []want{{"/purpose", "required"}}},
		{"scenario: no invariants", schemas.Scenario, []edit{set("/invariants_exercised", []any{})}, []want{{"/invariants_exercised", "minItems"}}},
		{"scenario: invariant id", schemas.Scenario, []edit{set("/invariants_exercised", []any{"state_hash"})}, []want{{"/invariants_exercised/0", "pattern"}}},
		{"scenario: gate id", schemas.Scenario, []edit{set("/proof_gates_exercised", []any{"gate.magic"})}, []want{{"/proof_gates_exercised/0", "enum"}}},
		{"scenario: verdict", schemas.Scenario, []edit{set("/pass_criteria/overall_verdict", "great")}, []want{{"/pass_criteria/overall_verdict", "enum"}}},
		{"scenario: verdict list", schemas.Scenario, []edit{set("/pass_criteria/overall_verdict", []any{"pass", "great"})}, []want{{"/pass_criteria/overall_verdict/1", "enum"}}},
		{"scenario: empty verdict list", schemas.Scenario, []edit{set("/pass_criteria/overall_verdict", []any{})}, []want{{"/pass_criteria/overall_verdict", "minItems"}}},
		{"scenario: verdict type", schemas.Scenario, []edit{set("/pass_criteria/overall_verdict", true)}, []want{{"/pass_criteria/overall_verdict", "type"}}},
		{"scenario: criteria extra", schemas.Scenario, []edit{set("/pass_criteria/bonus", true)}, []want{{"/pass_criteria/bonus", "additionalProperties"}}},
		{"scenario: min models", schemas.Scenario, []edit{set("/pass_criteria/min_models", num("0"))}, []want{{"/pass_criteria/min_models", "minimum"}}},
		{"scenario: signal", schemas.Scenario, []edit{set("/pass_criteria/must_emit_signal", []any{"SkillCrystallized"})}, []want{{"/pass_criteria/must_emit_signal/0", "pattern"}}},
		{"scenario: input extra", schemas.Scenario, []edit{set("/inputs", []any{map[string]any{"name": "q", "type": "string", "example": "x", "required": true}})}, []want{{"/inputs/0/required", "additionalProperties"}}},
		{"scenario: input without example", schemas.Scenario, []edit{set("/inputs", []any{map[string]any{"name": "q", "type": "string"}})}, []want{{"/inputs/0/example", "required"}}},
		{"scenario: secret place", schemas.Scenario, []edit{set("/seeded_secrets", []any{map[string]any{"kind": "jwt", "value": "x", "placed_in": "somewhere"}})}, []want{{"/seeded_secrets/0/placed_in", "pattern"}}},
		{"scenario: capability", schemas.Scenario, []edit{set("/capabilities_attempted", []any{"os"})}, []want{{"/capabilities_attempted/0", "pattern"}}},
		{"scenario: body", schemas.Scenario, []edit{set("/body_choice", "sim")}, []want{{"/body_choice", "enum"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := minimal(t, tc.schema)
			for _, e := range tc.edits {
				e(t, doc)
			}
			err := v.Validate(tc.schema, doc)
			var ve *schemas.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *ValidationError", err)
			}
			var got []want
			for _, f := range ve.Errors {
				got = append(got, want{f.Pointer, f.Keyword})
				if f.Message == "" {
					t.Errorf("%s %s: empty message", f.Pointer, f.Keyword)
				}
			}
			if !equal(got, tc.want) {
				t.Errorf("got errors\n%v\nwant (pointer, keyword)\n%v", err, tc.want)
			}
		})
	}
}

func equal(a, b []want) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMessages(t *testing.T) {
	v := newValidator(t)
	cases := []struct {
		schema string
		edits  []edit
		want   string // ValidationError.Error()
	}{
		{schemas.Manifest, []edit{set("/slug", "Not A Slug")}, "/slug: must match pattern ^[a-z0-9-]+$"},
		{schemas.Manifest, []edit{del("/name"), set("/x~y", 1)}, "/name: is required\n/x~0y: is not an allowed member here"},
		{schemas.Manifest, []edit{set("/body_choice", "robot")}, `/body_choice: must be one of "browser", "host" or "simulator"`},
		{schemas.Manifest, []edit{set("/schema", "x")}, `/schema: must be "https://opensentience.org/spec/skill-manifest/v0.1"`},
		{schemas.Manifest, []edit{set("/name", "")}, "/name: must not be empty"},
		{schemas.Manifest, []edit{set("/version", "1")}, "/version: must be an integer, not a string"},
		{schemas.Manifest, []edit{set("/capabilities_required", []any{})}, "/capabilities_required: must not be empty"},
		{schemas.ReplayReport, []edit{set("/fidelity", num("1.5"))}, "/fidelity: must be at most 1"},
		{schemas.ReplayReport, []edit{set("/cost_usd", "free")}, "/cost_usd: must be null or a number, not a string"},
		{schemas.ReplayReport, []edit{set("/skill_id", "01970a3c")}, "/skill_id: must be a UUID: must have 5 elements"},
		{schemas.Proof, []edit{set("/proof_gates/4/id", "gate.authority")}, "/proof_gates: must contain the gate.content_hash gate"},
		{schemas.Proof, []edit{set("/invariant_results", []any{map[string]any{"id": "inv.x", "held": "yes"}})}, `/invariant_results/0/held: must be one of true, false or "n/a"`},
		{schemas.Scenario, []edit{set("/proof_gates_exercised", []any{"gate.authority", "gate.authority"})}, "/proof_gates_exercised: items 0 and 1 are equal; each must appear once"},
	}
	for _, tc := range cases {
		doc := minimal(t, tc.schema)
		for _, e := range tc.edits {
			e(t, doc)
		}
		err := v.Validate(tc.schema, doc)
		if err == nil || err.Error() != tc.want {
			t.Errorf("got\n%v\nwant\n%s", err, tc.want)
		}
	}
}

// Errors come sorted by pointer with array indices compared as numbers.
func TestFieldsSortedNumerically(t *testing.T) {
	v := newValidator(t)
	doc := minimal(t, schemas.Bundle)
	trace := doc["interaction_trace"].(map[string]any)
	var edges []any
	for i := 0; i < 12; i++ {
		e := testdata(t, "edge.json")
		if i == 2 || i == 10 {
			e["state_after"] = "sha256:XYZ"
		}
		edges = append(edges, e)
	}
	trace["edges"] = edges
	doc["bundle_version"] = "9"
	err := v.Validate(schemas.Bundle, doc)
	var ve *schemas.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *ValidationError", err)
	}
	var got []string
	for _, f := range ve.Errors {
		got = append(got, f.Pointer)
	}
	want := []string{"/bundle_version", "/interaction_trace/edges/2/state_after", "/interaction_trace/edges/10/state_after"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("pointers %v, want %v", got, want)
	}
}

func TestUnknownSchema(t *testing.T) {
	v := newValidator(t)
	for _, err := range []error{
		v.Validate("https://opensentience.org/spec/nothing/v0.1", map[string]any{}),
		v.ValidateJSON("skill-bundle", []byte(`{}`)),
	} {
		if !errors.Is(err, schemas.ErrUnknownSchema) {
			t.Errorf("got %v, want ErrUnknownSchema", err)
		}
	}
}

func TestValidateJSON(t *testing.T) {
	v := newValidator(t)
	good, err := json.Marshal(minimal(t, schemas.Manifest))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.ValidateJSON(schemas.Manifest, good); err != nil {
		t.Errorf("valid manifest bytes rejected: %v", err)
	}
	cases := []struct {
		name, data, want string
	}{
		{"syntax", `{"schema": }`, "not JSON at byte 12"},
		{"trailing", `{} {}`, "not JSON"},
		{"empty", ``, "not JSON"},
	}
	for _, tc := range cases {
		err := v.ValidateJSON(schemas.Manifest, []byte(tc.data))
		var ve *schemas.ValidationError
		if err == nil || errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a parse error containing %q", tc.name, err, tc.want)
		}
	}
	err = v.ValidateJSON(schemas.Manifest, []byte(`{"schema": 1}`))
	var ve *schemas.ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("got %v, want a *ValidationError", err)
	}
}

// A bundle larger than any demonstration a user would record.
func BenchmarkValidateBundle1000Edges(b *testing.B) {
	v := newValidator(b)
	doc := minimal(b, schemas.Bundle)
	var edges []any
	for i := 0; i < 1000; i++ {
		e := testdata(b, "edge.json")
		e["index"] = json.Number(strconv.Itoa(i))
		edges = append(edges, e)
	}
	doc["interaction_trace"].(map[string]any)["edges"] = edges
	b.ResetTimer()
	for b.Loop() {
		if err := v.Validate(schemas.Bundle, doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := schemas.New(); err != nil {
			b.Fatal(err)
		}
	}
}

// A problem whose pointer or message is megabytes long (a hostile member
// name) prints in a bounded line that keeps its start and end and says how
// much was left out; a short one prints whole.
func TestFieldErrorStringIsBounded(t *testing.T) {
	long := "/manifest/" + strings.Repeat("é", 1<<20) + "/end"
	tests := []struct {
		name    string
		f       schemas.FieldError
		want    []string
		maxSize int
	}{
		{"short", schemas.FieldError{Pointer: "/manifest/slug", Message: "does not match pattern"},
			[]string{"/manifest/slug: does not match pattern"}, 100},
		{"document", schemas.FieldError{Message: "not an object"}, []string{"(document): not an object"}, 100},
		{"long pointer", schemas.FieldError{Pointer: long, Message: "additional property not allowed"},
			[]string{"/manifest/éé", "bytes]…", "é/end: additional property not allowed"}, 1200},
		{"long message", schemas.FieldError{Pointer: "/x", Message: "property " + strings.Repeat("a", 1<<20) + " not allowed"},
			[]string{"/x: property aaa", "aaa not allowed"}, 1200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.f.String()
			if len(got) > tt.maxSize || !utf8.ValidString(got) {
				t.Errorf("%d bytes (valid UTF-8: %t), want at most %d", len(got), utf8.ValidString(got), tt.maxSize)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%.200q lacks %q", got, w)
				}
			}
		})
	}
}

// TestNewCompilesOnce: every caller in a process (the app's verifier, each
// simulator it opens, the policy check) gets the one compiled Validator.
func TestNewCompilesOnce(t *testing.T) {
	a, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	b, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("New compiled the schemas a second time")
	}
}
