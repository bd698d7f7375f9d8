package skill

import (
	"encoding/json"
	"fmt"
)

// ReplayRecord decodes the replay record that e, a
// workbench.v1.ReplayExecuted event, carries as its data. It fails for an
// event of another type and for data that is not a replay record.
func (e Event) ReplayRecord() (*ReplayRecord, error) {
	if e.Type != EventReplayExecuted {
		return nil, fmt.Errorf("event %s is a %s, not a %s", e.ID, e.Type, EventReplayExecuted)
	}
	raw, err := json.Marshal(e.Data)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.ID, err)
	}
	var rec ReplayRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("event %s: data is not a replay record: %w", e.ID, err)
	}
	return &rec, nil
}

// ReplayRecords returns the replay record of every
// workbench.v1.ReplayExecuted event in b's evidence, in the order
// recorded: the replays the bundle carries. An event whose data is not a
// replay record, or names no replay_id, is left out; judging such an event
// is the verifier's business, not the reader's.
func (b *Bundle) ReplayRecords() []ReplayRecord {
	var out []ReplayRecord
	for _, e := range b.Evidence.Events {
		if e.Type != EventReplayExecuted {
			continue
		}
		if rec, err := e.ReplayRecord(); err == nil && rec.Report.ReplayID != "" {
			out = append(out, *rec)
		}
	}
	return out
}
