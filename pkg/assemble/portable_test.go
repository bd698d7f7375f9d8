package assemble_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/canonjson"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// acceptedElsewhere lists why the other implementation of the spec would
// refuse to store bundle data, or fail one of its gates on it, as read
// from its import page and its verifier (docs/decisions.md, "Bundles
// between the two implementations"): bundle_version 0.1.0; every edge
// with index equal to its position, a string ts and a string kind; every
// capability an edge names declared in capabilities_required, ambient
// included; proof.authority_result and proof.redaction_result objects
// with a profile it knows; the manifest's name, slug and description
// strings; an edge's state_hash, when it has one beside an observation,
// the hash of that observation. None of it says the bundle is good, only
// that the other verifier finds nothing to refuse.
func acceptedElsewhere(data []byte) []string {
	var b struct {
		BundleVersion string `json:"bundle_version"`
		Manifest      struct {
			Name, Slug, Description *string
			Caps                    []string `json:"capabilities_required"`
		} `json:"manifest"`
		Trace struct {
			Edges []map[string]json.RawMessage `json:"edges"`
		} `json:"interaction_trace"`
		Proof struct {
			Authority *struct{} `json:"authority_result"`
			Redaction *struct {
				Profile string `json:"profile"`
			} `json:"redaction_result"`
		} `json:"proof"`
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return []string{err.Error()}
	}
	var why []string
	if b.BundleVersion != "0.1.0" {
		why = append(why, "bundle_version is not 0.1.0")
	}
	if b.Manifest.Name == nil || b.Manifest.Slug == nil || b.Manifest.Description == nil {
		why = append(why, "the manifest lacks a name, slug or description string")
	}
	if b.Proof.Authority == nil {
		why = append(why, "proof.authority_result is missing")
	}
	if b.Proof.Redaction == nil || !slices.Contains([]string{"none", "transcript_pii", "full"}, b.Proof.Redaction.Profile) {
		why = append(why, "proof.redaction_result.profile is missing or unknown")
	}
	if len(b.Trace.Edges) == 0 {
		why = append(why, "the trace has no edges")
	}
	for i, e := range b.Trace.Edges {
		var index int
		var ts, kind, capability, stateHash string
		if json.Unmarshal(e["index"], &index) != nil || index != i {
			why = append(why, fmt.Sprintf("edge %d: index is not %d", i, i))
		}
		if json.Unmarshal(e["ts"], &ts) != nil {
			why = append(why, fmt.Sprintf("edge %d: no string ts", i))
		}
		if json.Unmarshal(e["kind"], &kind) != nil {
			why = append(why, fmt.Sprintf("edge %d: no string kind", i))
		}
		if c, ok := e["capability"]; ok && json.Unmarshal(c, &capability) == nil && !slices.Contains(b.Manifest.Caps, capability) {
			why = append(why, fmt.Sprintf("edge %d: capability %s is not in capabilities_required", i, capability))
		}
		if obs, ok := e["observation"]; ok && json.Unmarshal(e["state_hash"], &stateHash) == nil {
			form, err := canonjson.Transform(obs)
			sum := sha256.Sum256(form)
			if err != nil || stateHash != "sha256:"+hex.EncodeToString(sum[:]) {
				why = append(why, fmt.Sprintf("edge %d: state_hash is not the hash of its observation", i))
			}
		}
	}
	return why
}

// TestBundlesCarryWhatTheOtherImplementationRequires holds every way the
// workbench writes a bundle — taught, with a replay saved, redacted,
// revised — to what the other implementation requires to accept it.
func TestBundlesCarryWhatTheOtherImplementationRequires(t *testing.T) {
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	encode := func(b *skill.Bundle) []byte {
		data, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	taught := func() []byte {
		e := newEnv(t, fixtures.BasicPromptToManifest, openroutertest.Script{Model: model, Steps: []openroutertest.Step{
			openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
			openroutertest.Answer("Getting started"),
		}})
		b, _ := e.teach()
		return encode(b)
	}
	// revisedOld is a bundle written before edges carried ts and kind,
	// revised: the new version gains them.
	revisedOld := func() []byte {
		b, _, err := skill.Decode(read(fixtures.ValidBundleFile))
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Trace.Edges {
			b.Trace.Edges[i].TS, b.Trace.Edges[i].Kind = "", ""
		}
		nb, err := assemble.Revise(v, b, assemble.Edit{Name: "Read it", Slug: "read-it", Description: "Reads it."},
			time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), skill.NewID)
		if err != nil {
			t.Fatal(err)
		}
		return encode(nb)
	}
	for _, tc := range []struct {
		name string
		data func() []byte
	}{
		{"taught", taught},
		{"with a replay saved (fixture)", func() []byte { return read(fixtures.ValidBundleFile) }},
		{"redacted transcript_pii (fixture)", func() []byte { return read("redacted-transcript_pii.v0.json") }},
		{"revised from a bundle without ts and kind", revisedOld},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data()
			if why := acceptedElsewhere(data); len(why) > 0 {
				t.Errorf("the other implementation would refuse it: %v", why)
			}
			b, _, err := skill.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range b.Trace.Edges {
				if e.TS != e.Provenance.Timestamp || e.Kind != skill.EdgeKindAct {
					t.Errorf("edge %d: ts %q kind %q; want provenance.timestamp %q and %q", i, e.TS, e.Kind, e.Provenance.Timestamp, skill.EdgeKindAct)
				}
			}
			if _, err := v.Bytes(data); err != nil {
				t.Errorf("our own verifier refuses it: %v", err)
			}
		})
	}
}
