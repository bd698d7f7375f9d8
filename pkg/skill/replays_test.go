package skill_test

import (
	"strings"
	"testing"

	"workbench/pkg/skill"
)

func TestReplayRecords(t *testing.T) {
	replay := func(id string) map[string]any {
		return map[string]any{
			"replay_report":  map[string]any{"replay_id": id, "skill_id": "s", "fidelity": 0.5},
			"expected_level": "exact",
			"edges":          []any{},
		}
	}
	ev := func(id, typ string, data any) skill.Event {
		return skill.Event{ID: id, Type: typ, Data: data}
	}
	b := &skill.Bundle{Evidence: skill.Evidence{Events: []skill.Event{
		ev("e1", skill.EventReplayExecuted, replay("r1")),
		ev("e2", "workbench.v1.SkillCrystallized", replay("not-a-replay-event")),
		ev("e3", skill.EventReplayExecuted, "a string, not a record"),
		ev("e4", skill.EventReplayExecuted, replay("")),
		ev("e5", skill.EventReplayExecuted, replay("r2")),
	}}}
	recs := b.ReplayRecords()
	if len(recs) != 2 || recs[0].Report.ReplayID != "r1" || recs[1].Report.ReplayID != "r2" || recs[1].Report.Fidelity != 0.5 {
		t.Fatalf("ReplayRecords = %+v, want r1 then r2", recs)
	}

	for _, tc := range []struct {
		ev   skill.Event
		want string
	}{
		{b.Evidence.Events[1], "not a workbench.v1.ReplayExecuted"},
		{b.Evidence.Events[2], "event e3: data is not a replay record"},
	} {
		if _, err := tc.ev.ReplayRecord(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("event %s: error %v, want one saying %q", tc.ev.ID, err, tc.want)
		}
	}
	if (&skill.Bundle{}).ReplayRecords() != nil {
		t.Error("a bundle without events carries replays")
	}
}
