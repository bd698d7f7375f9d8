package assemble_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Replays made together are saved as one version: the next, carrying all.
func TestWithReplays(t *testing.T) {
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fixtures.ValidBundleFile))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	recs := b.ReplayRecords()
	if len(recs) == 0 {
		t.Fatal("the fixture carries no replay to add again")
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{1, 2, 3} {
		add := make([]skill.ReplayRecord, n)
		for i := range add {
			add[i] = recs[0]
			add[i].Report.ReplayID = skill.NewID()
		}
		nb, err := assemble.WithReplays(v, b, add, now, skill.NewID)
		if err != nil {
			t.Fatalf("%d replays: %v", n, err)
		}
		if nb.SkillVersion != b.SkillVersion+1 || nb.Manifest.Version != nb.SkillVersion {
			t.Errorf("%d replays: version %d (manifest %d), want %d", n, nb.SkillVersion, nb.Manifest.Version, b.SkillVersion+1)
		}
		if got := len(nb.ReplayRecords()) - len(recs); got != n {
			t.Errorf("%d replays: %d added", n, got)
		}
		if got := len(nb.Manifest.ValidatedAgainst) - len(b.Manifest.ValidatedAgainst); got != n {
			t.Errorf("%d replays: %d validations added", n, got)
		}
		enc, err := nb.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Bytes(enc); err != nil {
			t.Errorf("%d replays: the new version does not verify: %v", n, err)
		}
	}
	if _, err := assemble.WithReplays(v, b, nil, now, skill.NewID); err == nil {
		t.Error("no replay: no error")
	}
}
