package main

import (
	"testing"
	"time"
)

// The idle warm-up's schedule: each case feeds idle periods, as the page
// would describe them, to a warmState that has run the verifier for
// worked, and checks every answer.
func TestWarmStateNext(t *testing.T) {
	p := warmPolicy{budget: 300 * time.Millisecond, wait: 2 * time.Second, minIdle: 20 * time.Millisecond, quiet: time.Second, maxInputs: 5}
	idle := warmSeen{idleLeft: 49 * time.Millisecond, sinceStart: 3 * time.Second}
	with := func(f func(*warmSeen)) warmSeen { s := idle; f(&s); return s }
	early := with(func(s *warmSeen) { s.sinceStart = 1500 * time.Millisecond })
	short := with(func(s *warmSeen) { s.idleLeft = 15 * time.Millisecond })
	hidden := with(func(s *warmSeen) { s.hidden = true })
	importing := with(func(s *warmSeen) { s.importing = true })
	justTyped := with(func(s *warmSeen) { s.inputs, s.sinceInput = 3, 200*time.Millisecond })
	typedAWhileAgo := with(func(s *warmSeen) { s.inputs, s.sinceInput = 3, 2*time.Second })
	busy := with(func(s *warmSeen) { s.inputs, s.sinceInput = 5, time.Minute })

	for _, tc := range []struct {
		name   string
		worked time.Duration
		seen   warmSeen
		want   warmAction
	}{
		{"an idle period after the wait: work", 0, idle, warmWork},
		{"before the wait: later", 0, early, warmLater},
		{"an idle period too short for a run: the next one", 0, short, warmIdle},
		{"a hidden tab: later", 0, hidden, warmLater},
		{"the import page open: later", 0, importing, warmLater},
		{"an input event under a second ago: later", 0, justTyped, warmLater},
		{"the person has been quiet for the quiet time: work", 0, typedAWhileAgo, warmWork},
		{"the person has used the page: stop", 0, busy, warmStop},
		{"just below the budget: work", 299 * time.Millisecond, idle, warmWork},
		{"the budget spent: stop", 300 * time.Millisecond, idle, warmStop},
		{"the budget spent, the tab hidden: stop", time.Second, hidden, warmStop},
		{"the person has used the page, the tab hidden: stop", 0, with(func(s *warmSeen) { *s = busy; s.hidden = true }), warmStop},
	} {
		w := warmState{policy: p, worked: tc.worked}
		if got := w.next(tc.seen); got != tc.want {
			t.Errorf("%s: %d, want %d (%+v)", tc.name, got, tc.want, tc.seen)
		}
	}
}
