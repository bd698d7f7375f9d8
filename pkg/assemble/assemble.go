// Package assemble puts a demonstration, its crystallized manifest and its
// replays together into a sealed SkillBundle whose embedded proof is the
// verifier's own (spec §5.1, §6).
//
// It is the last step of teaching — demonstrate (package demonstrate),
// crystallize (package crystallize), assemble — and the step that saves a
// replay as a new bundle version. Every member of the evidence comes from
// what was recorded; nothing is filled in for show.
package assemble

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/pulse"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Teaching is one finished demonstration and the manifest made from it.
type Teaching struct {
	Task     demonstrate.Task
	Result   *demonstrate.Result
	Manifest skill.Manifest
	ModelID  string
}

// Bundle assembles and seals the bundle of a teaching. The manifest's name,
// slug and description are taken as the user left them. The bundle's trace
// is the demonstration's, bound to the manifest's inputs as the task filled
// them (crystallize.Bind).
//
// Bundle changes nothing it is given: the crystallization and
// consolidation phases it records go on a copy of the demonstration's
// PULSE recorder, timed at now, with event ids from newID and span ids
// derived from them. Sealing the same teaching twice, with the same now
// and an id source that gives the same ids, gives the same bytes; a
// preview may seal and throw the bundle away before the real seal.
func Bundle(v *verify.Verifier, t Teaching, now time.Time, newID func() string) (*skill.Bundle, error) {
	res := t.Result
	if res == nil || res.Recorder == nil {
		return nil, errors.New("assemble: no demonstration")
	}
	if len(res.Trace.Edges) == 0 {
		return nil, errors.New("assemble: the demonstration recorded no action, so there is no skill to bundle")
	}
	rec := res.Recorder.Clone(pulse.WithClock(func() time.Time { return now }), pulse.WithIDs(newID),
		pulse.WithSpanIDs(func() string { return spanID(newID()) }))
	learn := rec.StartPhase(pulse.PhaseLearn)
	if _, err := rec.SkillCrystallized(learn, t.Manifest); err != nil {
		return nil, fmt.Errorf("assemble: %w", err)
	}
	b := &skill.Bundle{
		BundleVersion: skill.BundleVersion, BundleID: newID(), SkillID: t.Manifest.SkillID,
		SkillVersion: t.Manifest.Version, CreatedAt: skill.Timestamp(now),
		WorkbenchVersion: skill.WorkbenchVersion,
		Manifest:         t.Manifest,
		Trace:            crystallize.Bind(&res.Trace, inputs(t)),
	}
	b.Trace.Edges = portable(b.Trace.Edges)
	consolidate := rec.StartPhase(pulse.PhaseConsolidate)
	if _, err := rec.ConsolidationEvent(consolidate, pulse.Consolidation{BundleID: b.BundleID, SkillID: b.SkillID}); err != nil {
		return nil, fmt.Errorf("assemble: %w", err)
	}
	consolidate.End()
	ev, err := evidence(t, rec)
	if err != nil {
		return nil, err
	}
	b.Evidence = ev
	if err := v.SealWithProof(b); err != nil {
		return nil, fmt.Errorf("assemble: seal: %w", err)
	}
	return b, nil
}

// inputs are the manifest's inputs with the values the task gave them, in
// the manifest's order, which is the order crystallize bound them in.
func inputs(t Teaching) []crystallize.Input {
	out := make([]crystallize.Input, len(t.Manifest.Inputs))
	for i, in := range t.Manifest.Inputs {
		out[i] = crystallize.Input{InputSpec: in, Value: t.Task.Inputs[in.Name]}
	}
	return out
}

// spanID derives a span id (16 lowercase hex, not all zero) from an id
// of the seal's id source, so that what sealing records depends on its
// arguments alone.
func spanID(id string) string {
	sum := sha256.Sum256([]byte("workbench/assemble/span/" + id))
	if binary.BigEndian.Uint64(sum[:8]) == 0 {
		return hex.EncodeToString(sum[8:16])
	}
	return hex.EncodeToString(sum[:8])
}

func evidence(t Teaching, rec *pulse.Recorder) (skill.Evidence, error) {
	res := t.Result
	manifestMap := map[string]any{}
	if err := roundTrip(t.Manifest, &manifestMap); err != nil {
		return skill.Evidence{}, err
	}
	pm, err := pulse.Manifest()
	if err != nil {
		return skill.Evidence{}, fmt.Errorf("assemble: PULSE manifest: %w", err)
	}
	scenario := t.Task.ScenarioID
	if scenario == "" {
		scenario = "freeform"
	}
	task := &skill.Task{ID: t.Task.ID, Description: t.Task.Description, BodyChoice: t.Task.BodyChoice, CreatedAt: res.Trace.StartedAt}
	inputs := t.Task.Inputs
	if inputs == nil {
		inputs = map[string]any{}
	}
	// The local policy engine decided every action; no principal-bound grant
	// exists in v0.1 (spec §15), so those members are null, not invented.
	auth := map[string]any{"policy_id": t.Manifest.DelegaticPolicyID, "approved_by": "local:" + t.Manifest.DelegaticPolicyID, "principal_id": nil, "capability_grant_ref": nil}
	return skill.Evidence{
		Scenario: skill.Scenario{ScenarioID: scenario, Source: "workbench", Manifest: manifestMap, Task: task, Inputs: inputs},
		System:   skill.System{SystemID: "openrouter:" + t.ModelID, Model: t.ModelID, Provider: "openrouter", BYOKey: true},
		CapabilitySnapshot: skill.CapabilitySnapshot{
			AmpersandVersion: skill.AmpersandVersion,
			Primitives:       primitives(t.Manifest.CapabilitiesRequired),
			Subtypes:         t.Manifest.CapabilitiesRequired,
		},
		PulseManifestSnapshot: pm,
		Trace:                 rec.Trace(),
		Events:                rec.Events(),
		Transcript:            res.Transcript,
		ToolCalls:             res.ToolCalls,
		GraphonomousRefs:      []skill.GraphRef{},
		Authorization:         auth,
		EvidenceRefs:          []skill.EvidenceRef{},
		RedactionProfile:      skill.RedactionNone,
		Reproducibility: skill.Reproducibility{
			AmpersandProtocolVersion: skill.AmpersandVersion, PulseVersion: skill.PulseVersion,
			PrismVersion: skill.PrismVersion, WorkbenchVersion: skill.WorkbenchVersion,
		},
	}, nil
}

// primitives lists the [&] primitives of capability subtypes:
// "&body.browser" → "&body".
func primitives(caps []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, c := range caps {
		p, _, _ := strings.Cut(c, ".")
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// WithReplay returns a new version of bundle b that carries the replay
// record as a workbench.v1.ReplayExecuted event, with the manifest's
// validated_against extended and the proof re-derived. b is not changed.
func WithReplay(v *verify.Verifier, b *skill.Bundle, rec skill.ReplayRecord, now time.Time, newID func() string) (*skill.Bundle, error) {
	return WithReplays(v, b, []skill.ReplayRecord{rec}, now, newID)
}

// WithReplays returns the next version of bundle b carrying every replay
// of recs, in order, each in its own workbench.v1.ReplayExecuted event and
// in the manifest's validated_against: one version for all, so that
// replays made together (a comparison of models) leave no version number
// unused. The proof is re-derived and the bundle sealed.
func WithReplays(v *verify.Verifier, b *skill.Bundle, recs []skill.ReplayRecord, now time.Time, newID func() string) (*skill.Bundle, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("assemble: no replay to add")
	}
	nb, err := clone(b)
	if err != nil {
		return nil, err
	}
	r, err := pulse.NewRecorder(nb.Trace.TraceID, "workbench", pulse.WithClock(func() time.Time { return now }), pulse.WithIDs(newID))
	if err != nil {
		return nil, fmt.Errorf("assemble: %w", err)
	}
	for _, rec := range recs {
		ev, err := r.ReplayExecuted(nil, rec)
		if err != nil {
			return nil, fmt.Errorf("assemble: %w", err)
		}
		nb.Evidence.Events = append(nb.Evidence.Events, ev)
		nb.Manifest.ValidatedAgainst = append(nb.Manifest.ValidatedAgainst, skill.Validation{
			Model: rec.Report.ModelUsed, Fidelity: rec.Report.Fidelity, Level: rec.Report.FidelityLevel, TS: rec.Report.EndedAt,
		})
	}
	return nextVersion(v, nb, now, newID)
}

// clone returns a deep copy of b, made through its encoding, for a new
// version to be built on without changing b.
func clone(b *skill.Bundle) (*skill.Bundle, error) {
	data, err := b.Encode()
	if err != nil {
		return nil, err
	}
	nb, _, err := skill.Decode(data)
	return nb, err
}

// nextVersion turns nb, a changed clone, into the next version of its
// skill: the version number one up, updated and created now, a new bundle
// id, portable edges, and sealed with a re-derived proof.
func nextVersion(v *verify.Verifier, nb *skill.Bundle, now time.Time, newID func() string) (*skill.Bundle, error) {
	nb.Manifest.Version++
	nb.Manifest.UpdatedAt = skill.Timestamp(now)
	nb.SkillVersion = nb.Manifest.Version
	nb.BundleID = newID()
	nb.CreatedAt = skill.Timestamp(now)
	nb.Trace.Edges = portable(nb.Trace.Edges)
	if err := v.SealWithProof(nb); err != nil {
		return nil, fmt.Errorf("assemble: seal: %w", err)
	}
	return nb, nil
}

// portable returns a copy of edges in which every edge carries the ts and
// kind members that the other implementation of the spec requires of each
// edge before its trace-completeness gate passes (docs/decisions.md,
// "Bundles between the two implementations"). Both are allowed by the
// spec, whose OS-011 edges are open: ts repeats provenance.timestamp, and
// every edge the workbench records is a typed action. An edge that
// already has them keeps them. The copy leaves the caller's trace, which
// may be a run still being shown, as it was.
func portable(edges []skill.Edge) []skill.Edge {
	out := slices.Clone(edges)
	for i := range out {
		if out[i].TS == "" {
			out[i].TS = out[i].Provenance.Timestamp
		}
		if out[i].Kind == "" {
			out[i].Kind = skill.EdgeKindAct
		}
	}
	return out
}

// roundTrip converts v to the generic JSON form out points to.
func roundTrip(v, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("assemble: %w", err)
	}
	return json.Unmarshal(data, out)
}

// Edit is what a user may change in a stored skill's manifest (spec §2.1:
// name and description; the slug too, §4.4).
type Edit struct {
	Name        string
	Slug        string
	Description string
}

// Revise returns a new version of bundle b with the manifest's name, slug
// and description as edited, re-sealed with a re-derived proof. The edited
// manifest must validate (non-empty name and description, a kebab-case
// slug); b is not changed.
func Revise(v *verify.Verifier, b *skill.Bundle, e Edit, now time.Time, newID func() string) (*skill.Bundle, error) {
	switch {
	case e.Name == "":
		return nil, errors.New("assemble: the name is empty")
	case e.Description == "":
		return nil, errors.New("assemble: the description is empty")
	}
	if err := skill.ValidSlug(e.Slug); err != nil {
		return nil, fmt.Errorf("assemble: %w", err)
	}
	nb, err := clone(b)
	if err != nil {
		return nil, err
	}
	nb.Manifest.Name, nb.Manifest.Slug, nb.Manifest.Description = e.Name, e.Slug, e.Description
	return nextVersion(v, nb, now, newID)
}
