package verify_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// generic decodes the reference bundle into maps to be edited.
func generic(t *testing.T, data []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rehash sets the content_hash of bundle bytes to the hash of their
// content, as a producer does, whether or not they are a valid bundle.
func rehash(t *testing.T, data []byte) []byte {
	t.Helper()
	m := generic(t, data)
	doc, err := skill.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	form, err := skill.HashedForm(doc)
	if err != nil {
		t.Fatal(err)
	}
	m["content_hash"] = skill.HashBytes(form)
	return marshal(t, m)
}

// TestDiagnosis: each input gets a headline saying what it is and what is
// wrong, and the content hash is recomputed even when the schema fails.
func TestDiagnosis(t *testing.T) {
	v, files := setup(t)
	ref := generic(t, files[fixtures.ValidBundleFile])
	events := ref["evidence"].(map[string]any)["events"].([]any)
	replay := events[len(events)-1].(map[string]any)["data"].(map[string]any)["replay_report"]

	wrongVersion := generic(t, files[fixtures.ValidBundleFile])
	wrongVersion["bundle_version"] = "0.2.0"
	stale := marshal(t, wrongVersion)
	intact := rehash(t, stale)

	for _, tc := range []struct {
		name     string
		in       []byte
		stage    string
		artifact string
		problems int
		hash     string // "", "intact" or "stale"
		headline string
	}{
		{"not JSON", []byte("{not json"), verify.StageNotJSON, "", 1, "", "not JSON: "},
		{"not I-JSON", []byte(`{"a":1,"a":2}`), verify.StageNotIJSON, "", 1, "", "JSON, but not I-JSON"},
		{"an array", []byte(`[1]`), verify.StageNotBundle, "", 1, "", "JSON, but not a bundle, nor any other artifact of the spec: the top-level value must be a JSON object"},
		{"something else", []byte(`{"hello":"world"}`), verify.StageNotBundle, "", 12, "", "JSON, but not a bundle, nor any other artifact of the spec"},
		{"a replay report", marshal(t, replay), verify.StageNotBundle, verify.ArtifactReplayReport, 0, "",
			"not a bundle: a valid ReplayReport (spec §5.3), checked against its own schema"},
		{"a proof", marshal(t, ref["proof"]), verify.StageNotBundle, verify.ArtifactProof, 0, "", "not a bundle: a valid ProofResult (spec §5.4)"},
		{"a manifest", marshal(t, ref["manifest"]), verify.StageNotBundle, verify.ArtifactManifest, 0, "", "not a bundle: a valid SkillManifest (spec §5.2)"},
		{"evidence", marshal(t, ref["evidence"]), verify.StageNotBundle, verify.ArtifactEvidence, 0, "", "not a bundle: a valid EvidenceBundle (spec §6)"},
		{"a broken replay report", []byte(`{"replay_id":"r1"}`), verify.StageNotBundle, verify.ArtifactReplayReport, 14, "",
			"not a bundle: it looks like a ReplayReport (spec §5.3), with 14 problems against that schema"},
		{"schema problem, stale hash", stale, verify.StageSchema, "", 1, "stale",
			"a bundle with 1 problem against the bundle schema; content hash STALE"},
		{"schema problem, intact hash", intact, verify.StageSchema, "", 1, "intact",
			"a bundle with 1 problem against the bundle schema; content hash intact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Bytes(tc.in)
			var ie *verify.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			hash := ""
			if ie.Hash != nil {
				hash = map[bool]string{true: "intact", false: "stale"}[ie.Hash.Intact]
			}
			if ie.Stage != tc.stage || ie.Artifact != tc.artifact || ie.Total() != tc.problems || hash != tc.hash ||
				!strings.HasPrefix(ie.Headline(), tc.headline) {
				t.Errorf("stage %q artifact %q, %d problems, hash %q\nheadline %q\nwant %q %q, %d, %q, %q…",
					ie.Stage, ie.Artifact, ie.Total(), hash, ie.Headline(), tc.stage, tc.artifact, tc.problems, tc.hash, tc.headline)
			}
			if strings.Contains(ie.Headline(), "\n") {
				t.Errorf("headline of several lines: %q", ie.Headline())
			}
		})
	}
}

// withStateHash gives each edge of bundle b OS-011's one state_hash in
// place of state_before and state_after, and returns the edges.
func withStateHash(b map[string]any) []any {
	edges := b["interaction_trace"].(map[string]any)["edges"].([]any)
	for _, e := range edges {
		e := e.(map[string]any)
		e["state_hash"] = e["state_after"]
		delete(e, "state_before")
		delete(e, "state_after")
	}
	return edges
}

// TestGroupsStateHashEdges: edges carrying OS-011's one state_hash where
// the bundle schema asks for state_before and state_after are one cause,
// counted once per edge and said plainly.
func TestGroupsStateHashEdges(t *testing.T) {
	v, files := setup(t)
	b := generic(t, files[fixtures.ValidBundleFile])
	edges := withStateHash(b)
	b["skill_version"] = "2" // one more cause, of another kind
	_, err := v.Bytes(rehash(t, marshal(t, b)))
	var ie *verify.InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want an *InvalidError", err)
	}
	groups := ie.Groups()
	if len(groups) != 2 {
		t.Fatalf("groups %+v", groups)
	}
	g := groups[0]
	want := fmt.Sprintf("%d edges carry one `state_hash` instead of `state_before`/`state_after` (OS-011 §4)", len(edges))
	if len(edges) < 2 || g.Count != len(edges) || g.Sentence != want || len(g.Examples) != min(len(edges), verify.MaxExamples) ||
		g.Pattern != "/interaction_trace/edges/*" {
		t.Errorf("%d edges, group %+v\nwant %q", len(edges), g, want)
	}
	if g := groups[1]; g.Pattern != "/skill_version" || g.Keyword != "type" || g.Count != 1 ||
		g.Sentence != "1 value at `/skill_version` failing type (must be an integer, not a string)" {
		t.Errorf("group %+v", g)
	}
	if ie.Hash == nil || !ie.Hash.Intact {
		t.Errorf("hash %+v, want intact", ie.Hash)
	}
}
