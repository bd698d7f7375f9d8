package e2e

import (
	"strings"
	"testing"
	"time"

	"workbench/pkg/capability/httpapi/altbackend"
)

// The palette against a backend written from the capability workbench
// document alone (altbackend: other member names, availability objects, a
// synchronous {status, result} answer, no approvals list, runs oldest
// first, a run that ends with run.succeeded, a stream_reset with a
// message): the list with its unusable entries, the form, preflight's
// decisions with the backend's reasons, a synchronous invoke shown as its
// result, a 202 invoke followed to its end, an approval discovered by
// re-submission, and a reset that names the events lost.
func TestPaletteAgainstAnotherBackend(t *testing.T) {
	t.Parallel()
	alt := altbackend.Start(t, 700*time.Millisecond)
	s := frontSession(t, alt.URL, nil)
	s.startContract()

	// The list: every entry, one bad entry hiding nothing else.
	s.waitVisible(`#pal-list [data-cap="notes.search"]`)
	s.waitText("#pal-count", "6 of 6 capabilities; 2 unusable entries")
	if n := s.countOf(".pal-unusable"); n != 2 {
		t.Errorf("%d unusable entries listed, want 2", n)
	}
	if got := s.text(`.pal-unusable[data-index="5"]`); !strings.Contains(got, "broken.prose") || !strings.Contains(got, "not a JSON Schema") {
		t.Errorf("unusable entry: %q", got)
	}
	if got := s.text(`.pal-source-error[data-source="calendar"]`); !strings.Contains(got, "upstream timed out") {
		t.Errorf("source failure: %q", got)
	}
	if got := eval[string](s, `document.querySelector('#pal-list [data-cap="crm.sync"]').getAttribute("aria-disabled")`); got != "true" {
		t.Errorf("crm.sync (availability {state: disabled}) is not disabled: %q", got)
	}

	// A synchronous answer is the result, not a failure.
	s.pickCapability("search", "notes.search")
	s.waitPresent(field("/query"))
	if got := s.text("#pal-target"); !strings.Contains(got, "none") {
		t.Errorf("target on / is %q, want none", got)
	}
	s.typeInto(field("/query"), "forbidden")
	s.waitText("#pal-invoke-why", "Denied: the notes policy refuses searches for forbidden material")
	s.editForm(func() { s.setValue(field("/query"), "milk", "input") })
	s.waitText("#pal-pv-decision", "allow")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "completed")
	s.waitPresent("#pal-result .pal-table")
	if s.countOf("#pal-invoke-error") != 0 {
		t.Errorf("the synchronous answer was shown as a failure: %q", s.text("#pal-invoke-error"))
	}
	s.waitText("#pal-run-status", "State: completed")

	// A 202 answer: the run is followed to its end, by its own terminal
	// event's name.
	s.pickCapability("create", "notes.create")
	s.waitPresent(field("/title"))
	s.editForm(func() { s.typeInto(field("/title"), "groceries") })
	s.waitText("#pal-pv-decision", "allow")
	s.tap("#pal-confirm")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "started")
	s.waitPresent(`#pal-timeline [data-type="run.succeeded"]`)
	s.waitText("#pal-run-status", "State: completed")

	// Approval with the document alone: no approvals list; resuming asks
	// the backend, which says "not yet" until another surface grants it.
	s.pickCapability("purge", "notes.purge")
	s.waitPresent(field("/folder"))
	s.typeInto(field("/folder"), "old")
	s.waitText("#pal-pv-decision", "approval_required")
	if got := s.text("#pal-invoke"); got != "Request approval" {
		t.Errorf("button %q, want Request approval", got)
	}
	s.tap("#pal-confirm")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitPresent("#pal-pending")
	s.waitPresent("#pal-approvals-none")
	id := eval[string](s, `document.querySelector("#pal-pending").dataset.approval`)
	s.waitText("#pal-invoke", "Resume approved action")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "not granted yet")
	if s.countOf("#pal-pending") != 1 {
		t.Error("the pending approval was dropped by a 'not yet' answer")
	}
	if !alt.Grant(id) {
		t.Fatalf("no approval %q on the backend", id)
	}
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "started")
	s.waitPresent(`#pal-timeline [data-type="run_started"]`)

	// The backend prunes events the follower has not seen: the reset's
	// reason is shown, and replaying the window names the events lost.
	run := eval[string](s, `document.querySelector("#pal-started").textContent.match(/Run (\S+)/)[1]`)
	seen := eval[int](s, `Math.max(...[...document.querySelectorAll("#pal-timeline [data-seq]")].map(e => +e.dataset.seq))`)
	alt.Forget(run, int64(seen+2))
	s.waitText("#pal-stream-reset", "pruned from the retained window")
	time.Sleep(5 * time.Second) // the run ends on the backend
	s.tap("#pal-replay-window")
	s.waitText("#pal-run-missing", "no longer retained")
	s.waitText("#pal-run-status", "State: completed")

	// The backend declares no approvals list: none was asked for.
	for _, r := range alt.Requests() {
		if strings.Contains(r.Path, "approvals") {
			t.Errorf("the palette called %s %s, which the backend never declared", r.Method, r.Path)
		}
	}
}
