package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"workbench/pkg/skill"
	"workbench/schemas"
)

// piiStripped is what transcript_pii strips from newBundle(t, 3): the
// personal class, then every string still holding a secret, an e-mail
// address or a password.
var piiStripped = []string{
	"/evidence/authorization/reason",
	"/evidence/events/0/data/aws_secret_access_key",
	"/evidence/events/1/data/replay_report/input/city",
	"/evidence/events/1/data/replay_report/input/count",
	"/evidence/events/1/data/replay_report/surprise_signals/0/evidence",
	"/evidence/evidence_refs/0/selector/exact",
	"/evidence/scenario/inputs/api_note",
	"/evidence/scenario/inputs/city",
	"/evidence/trace/spans/0/attributes/http.request.header",
	"/evidence/trace/spans/1/attributes/http.request.header",
	"/evidence/trace/spans/2/attributes/http.request.header",
	"/evidence/transcript/0/content",
	"/evidence/transcript/1/content",
	"/evidence/transcript/2/content",
	"/interaction_trace/edges/0/observed_outcome",
	"/interaction_trace/edges/0/x_debug/header",
	"/interaction_trace/edges/1/observed_outcome",
	"/interaction_trace/edges/1/tool/arguments/count",
	"/interaction_trace/edges/1/tool/arguments/text",
	"/interaction_trace/edges/1/typed_action/params/count",
	"/interaction_trace/edges/1/typed_action/params/text",
	"/interaction_trace/edges/2/observed_outcome",
	"/interaction_trace/edges/2/tool/arguments/note",
	"/interaction_trace/edges/2/typed_action/params/note",
	"/manifest/description",
}

// exported checks what every redacted export must satisfy and returns its
// bytes as a generic tree: no seeded secret in the bytes, a content hash
// that verifies on re-import, a schema-valid bundle, every listed pointer
// resolving to a redaction product, and Check finding nothing.
func exported(t *testing.T, b *skill.Bundle, res skill.RedactionResult) map[string]any {
	t.Helper()
	data := encode(t, b)
	for _, s := range seeded {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("the export still holds a seeded %.12s… secret", s)
		}
	}
	if !res.PostRedactionHashMatches || !slices.IsSorted(res.FieldsStripped) {
		t.Errorf("result %+v", res)
	}
	if !equalResult(b.Proof.RedactionResult, res) {
		t.Errorf("proof records %+v, Apply returned %+v", b.Proof.RedactionResult, res)
	}
	back, doc, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := skill.DocumentHash(doc); err != nil || h != back.ContentHash {
		t.Errorf("re-imported hash %s (%v), content_hash %s", h, err, back.ContentHash)
	}
	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.ValidateJSON(schemas.Bundle, data); err != nil {
		t.Errorf("the redacted bundle is not schema-valid:\n%v", err)
	}
	var tree map[string]any
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.FieldsStripped {
		v, ok := resolve(tree, p)
		if s, isStr := v.(string); !ok || (v != nil && !(isStr && IsMarker(s))) {
			t.Errorf("%s is listed as stripped but holds %v (found %v)", p, v, ok)
		}
	}
	if ps := Check(back); len(ps) != 0 {
		t.Errorf("Check found problems in Apply's output: %v", ps)
	}
	return tree
}

func equalResult(a, b skill.RedactionResult) bool {
	return a.Profile == b.Profile && a.PostRedactionHashMatches == b.PostRedactionHashMatches && slices.Equal(a.FieldsStripped, b.FieldsStripped)
}

func TestApplyTranscriptPII(t *testing.T) {
	b := newBundle(t, 3)
	before := clone(t, b)
	res, err := Apply(b, skill.RedactionTranscriptPII)
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile != skill.RedactionTranscriptPII || b.Evidence.RedactionProfile != skill.RedactionTranscriptPII {
		t.Errorf("profile %q, evidence %q", res.Profile, b.Evidence.RedactionProfile)
	}
	if !slices.Equal(res.FieldsStripped, piiStripped) {
		t.Errorf("fields_stripped\n%q\nwant\n%q", res.FieldsStripped, piiStripped)
	}
	tree := exported(t, b, res)

	for i, turn := range b.Evidence.Transcript {
		wantRedacted := before.Evidence.Transcript[i].Content != nil
		if turn.Content != nil || turn.Redacted != wantRedacted {
			t.Errorf("turn %d: content %v, redacted %v", i, turn.Content, turn.Redacted)
		}
	}
	// What replay needs survives: hashes, sources, literal and model-chosen
	// parameters, targets.
	for i, e := range b.Trace.Edges {
		o := before.Trace.Edges[i]
		if e.StateBefore != o.StateBefore || e.StateAfter != o.StateAfter || e.ShapeAfter != o.ShapeAfter ||
			e.TypedAction.Target != o.TypedAction.Target || len(e.ParamSources) != len(o.ParamSources) {
			t.Errorf("edge %d changed beyond its personal content", i)
		}
	}
	for ptr, want := range map[string]any{
		"/interaction_trace/edges/0/typed_action/params/url":   "sim://weather.example/forecast",
		"/interaction_trace/edges/1/typed_action/params/field": "search.city",
		"/interaction_trace/edges/1/typed_action/params/text":  Redacted,
		"/interaction_trace/edges/1/typed_action/params/count": Redacted,
		"/interaction_trace/edges/2/typed_action/params/note":  "auth [redacted:github_token]",
		"/interaction_trace/edges/0/x_debug/attempt":           1.0,
		"/interaction_trace/goal":                              "Find the forecast for Porto",
		"/evidence/transcript/0/content":                       nil,
		"/evidence/transcript/0/redacted":                      true,
		"/evidence/transcript/3/redacted":                      false,
		"/evidence/events/0/data/aws_secret_access_key":        "[redacted:aws_secret_access_key]",
		"/evidence/events/1/data/replay_report/status":         skill.StatusCompletedWithSurprises,
		"/evidence/judge/rationale":                            "The output names the forecast for Porto.",
		"/evidence/authorization/reason":                       "browser reads are allowed for [redacted:email]",
		"/manifest/description":                                "Searches the weather site for a city. Debug token [redacted:jwt] (remove).",
	} {
		if got, ok := resolve(tree, ptr); !ok || got != want {
			t.Errorf("%s = %#v, want %#v", ptr, got, want)
		}
	}
}

func TestApplyFull(t *testing.T) {
	b := newBundle(t, 3)
	before := encode(t, b)
	var orig map[string]any
	if err := json.Unmarshal(before, &orig); err != nil {
		t.Fatal(err)
	}
	res, err := Apply(b, skill.RedactionFull)
	if err != nil {
		t.Fatal(err)
	}
	tree := exported(t, b, res)
	for _, p := range piiStripped {
		if _, found := slices.BinarySearch(res.FieldsStripped, p); !found {
			t.Errorf("full does not strip %s, which transcript_pii strips", p)
		}
	}
	for _, p := range []string{
		"/interaction_trace/goal",
		"/interaction_trace/environment/initial_url",
		"/interaction_trace/edges/0/typed_action/params/url",
		"/interaction_trace/edges/0/typed_action/target",
		"/interaction_trace/edges/1/typed_action/semantic_locator/name",
		"/interaction_trace/edges/1/typed_action/preconditions/0",
		"/interaction_trace/edges/1/authorization/reason",
		"/interaction_trace/edges/2/tool/arguments/button",
		"/evidence/scenario/task/description",
		"/evidence/trace/spans/0/attributes/tool.name",
		"/evidence/events/0/data/notes/[redacted:aws_access_key_id]",
		"/evidence/events/1/data/replay_report/surprise_signals/0/detail",
		"/evidence/events/1/data/edges/0/authorization/reason",
		"/evidence/authorization/reason",
		"/evidence/judge/rationale",
		"/evidence/score/derivation",
	} {
		if _, found := slices.BinarySearch(res.FieldsStripped, p); !found {
			t.Errorf("full does not list %s", p)
		}
		if v, _ := resolve(tree, p); v != Redacted {
			t.Errorf("%s = %#v, want %q", p, v, Redacted)
		}
	}
	// Kept: hashes, ids, times, types, numbers, judge scores, the manifest
	// (secrets masked) and what re-deriving replay fidelity needs.
	for _, p := range []string{
		"/interaction_trace/edges/1/state_after",
		"/interaction_trace/edges/1/typed_action/type",
		"/interaction_trace/edges/1/authorization/decision",
		"/interaction_trace/edges/0/x_debug/attempt",
		"/evidence/trace/spans/0/attributes/edge.index",
		"/evidence/events/0/type",
		"/evidence/events/0/data/skill_id",
		"/evidence/events/1/data/expected_level",
		"/evidence/events/1/data/replay_report/replay_id",
		"/evidence/events/1/data/replay_report/status",
		"/evidence/events/1/data/replay_report/fidelity",
		"/evidence/events/1/data/replay_report/fidelity_level",
		"/evidence/events/1/data/replay_report/edges_committed",
		"/evidence/events/1/data/replay_report/started_at",
		"/evidence/events/1/data/replay_report/surprise_signals/0/actual_state_hash",
		"/evidence/events/1/data/replay_report/surprise_signals/0/surprise_magnitude",
		"/evidence/events/1/data/edges/2/observed_state_after",
		"/evidence/events/1/data/edges/2/observed_shape_after",
		"/evidence/events/1/data/edges/2/match",
		"/evidence/events/1/data/edges/2/committed",
		"/evidence/events/1/data/edges/2/authorization/decided_at",
		"/evidence/authorization/decision",
		"/evidence/authorization/block_id",
		"/evidence/judge/score",
		"/evidence/judge/judge_model",
		"/evidence/score/composite",
		"/evidence/evidence_refs/0/selector/type",
		"/evidence/capability_snapshot",
		"/evidence/pulse_manifest_snapshot",
		"/evidence/scenario/scenario_id",
		"/manifest/name",
		"/manifest/preconditions",
	} {
		want, _ := resolve(orig, p)
		got, ok := resolve(tree, p)
		if !ok || !jsonEqual(got, want) {
			t.Errorf("%s = %#v, want it kept as %#v", p, got, want)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestApplyNoneLeavesBytesUnchanged(t *testing.T) {
	b := newBundle(t, 3)
	before := encode(t, b)
	res, err := Apply(b, skill.RedactionNone)
	if err != nil {
		t.Fatal(err)
	}
	want := skill.RedactionResult{Profile: skill.RedactionNone, FieldsStripped: []string{}, PostRedactionHashMatches: true}
	if !equalResult(res, want) || res.FieldsStripped == nil {
		t.Errorf("result %+v, want %+v", res, want)
	}
	if after := encode(t, b); !bytes.Equal(before, after) {
		t.Errorf("none changed the bundle:\n%s\n%s", before, after)
	}
	if fs, _ := Scan(b); len(fs) == 0 {
		t.Error("Scan reports nothing on the unredacted bundle")
	}
}

func TestApplyIsIdempotent(t *testing.T) {
	for _, profile := range []string{skill.RedactionTranscriptPII, skill.RedactionFull} {
		t.Run(profile, func(t *testing.T) {
			b := newBundle(t, 3)
			first, err := Apply(b, profile)
			if err != nil {
				t.Fatal(err)
			}
			once := encode(t, b)
			second, err := Apply(b, profile)
			if err != nil {
				t.Fatal(err)
			}
			if !equalResult(first, second) {
				t.Errorf("second application lists\n%q\nfirst listed\n%q", second.FieldsStripped, first.FieldsStripped)
			}
			if twice := encode(t, b); !bytes.Equal(once, twice) {
				t.Error("a second application changed the bundle")
			}
		})
	}
}

func TestApplyUnknownProfile(t *testing.T) {
	b := newBundle(t, 3)
	before := encode(t, b)
	_, err := Apply(b, "partial")
	if !errors.Is(err, ErrUnknownProfile) {
		t.Fatalf("err = %v, want ErrUnknownProfile", err)
	}
	if !bytes.Equal(before, encode(t, b)) {
		t.Error("a refused profile changed the bundle")
	}
}

func TestApplyRenamesClashingMemberNames(t *testing.T) {
	// Two member names holding different keys of one kind mask alike; both
	// members must survive.
	b := newBundle(t, 3)
	b.Trace.Edges[0].TypedAction.Params[fakeAWSID] = "a"
	b.Trace.Edges[0].TypedAction.Params[fakeAWSSessionID[:4]+fakeAWSID[4:]] = "b"
	b.Trace.Edges[0].ParamSources[fakeAWSID] = skill.SourceLiteral
	if _, err := Apply(b, skill.RedactionTranscriptPII); err != nil {
		t.Fatal(err)
	}
	p := b.Trace.Edges[0].TypedAction.Params
	if p["[redacted:aws_access_key_id]"] == nil || p["[redacted:aws_access_key_id]#2"] == nil || len(p) != 3 {
		t.Errorf("params after masking: %v", p)
	}
}
