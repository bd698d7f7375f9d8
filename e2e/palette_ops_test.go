package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/pkg/capability/httpapi/opsbackend"
)

// The palette against a third backend written from the capability
// workbench document alone (opsbackend): several actions per capability,
// the invoke contract described in other words, members in another
// order, optional ones absent, a stream_reset carrying its reason in its
// data without a sequence, a table given as rows of cells under columns.
// Every entry is listed; each action has its own form, preflight and
// confirmation; action is the action's name; requests carry only the
// members the document names; no approvals route is guessed.
func TestPaletteAgainstTheOpsBackend(t *testing.T) {
	t.Parallel()
	ops := opsbackend.Start(t, 700*time.Millisecond)
	s := frontSession(t, ops.URL, nil)
	// The backend answers a resumption before the grant with 409
	// approval_pending; the browser logs it.
	s.expectConsole("409 (Conflict)")
	s.startContract()

	// Every entry, with the actions of each; the contract, in other
	// words, contradicts nothing.
	s.waitVisible(`#pal-list [data-cap="logs"]`)
	s.waitText("#pal-count", "4 of 4 capabilities")
	for _, id := range []string{"logs", "incidents", "deploys", "metrics"} {
		if s.countOf(`#pal-list [data-cap="`+id+`"]`) != 1 {
			t.Errorf("%s is not listed", id)
		}
	}
	if n := s.countOf(".pal-unusable") + s.countOf(".pal-note"); n != 0 {
		t.Errorf("%d notes or unusable entries for a catalog that follows the document", n)
	}
	if got := s.text(`#pal-list [data-cap="incidents"] .pal-opt-actions`); got != "actions: open, resolve, purge" {
		t.Errorf("incidents lists %q", got)
	}

	// logs: search, its table given as rows of cells under columns.
	s.pickCapability("logs", "logs")
	if !eval[bool](s, `document.querySelector("#pal-action-search").checked`) || s.countOf("#pal-action-tail") != 1 {
		t.Error("logs does not offer its actions, search chosen")
	}
	s.typeInto(field("/query"), "disk")
	s.waitText("#pal-pv-decision", "allow")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "started")
	s.waitPresent(`#pal-timeline [data-type="tool_result"] .pal-table`)
	if got := eval[[]string](s, `[...document.querySelectorAll('#pal-timeline [data-type="tool_result"] .pal-table th')].map((e) => e.textContent)`); !slices.Equal(got, []string{"time", "level", "message"}) {
		t.Errorf("table columns %q", got)
	}
	if n := s.countOf(`#pal-timeline [data-type="tool_result"] .pal-table tbody tr`); n != 2 {
		t.Errorf("%d table rows, want 2", n)
	}
	s.waitText("#pal-run-status", "State: completed")

	// logs: tail, another form. Its lines come as a burst, past the
	// retained window: the reset's reason, carried in its data, shows.
	s.tap("#pal-action-tail")
	s.waitPresent(field("/lines"))
	if s.countOf(field("/query")) != 0 {
		t.Error("the search's form stayed for tail")
	}
	s.editForm(func() { s.setValue(field("/lines"), "10", "input") })
	s.waitText("#pal-pv-decision", "allow")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "started")
	s.waitText("#pal-stream-reset", "retention_window_exceeded")
	s.tap("#pal-replay-window")
	s.waitText("#pal-run-missing", "no longer retained")
	s.waitText("#pal-run-status", "State: completed")

	// incidents: purge, destructive, needs approval; it is found by
	// resubmission, the backend declaring no approvals list.
	s.pickCapability("incidents", "incidents")
	for _, a := range []string{"open", "resolve", "purge"} {
		if s.countOf("#pal-action-"+a) != 1 {
			t.Errorf("incidents does not offer %s", a)
		}
	}
	s.tap("#pal-action-purge")
	s.waitPresent(field("/older_than_days"))
	s.waitText("#pal-desc-effect", "destructive")
	// The empty form's preview asks for approval too: a confirmation
	// given against it would go with it when the edit is taken.
	s.editForm(func() { s.setValue(field("/older_than_days"), "30", "input") })
	s.waitJS(`document.querySelector("#pal-pv-decision").textContent === "approval_required" && document.querySelector("#pal-invoke").textContent === "Request approval"`)
	if !s.isDisabled("#pal-invoke") {
		t.Error("a destructive action is submittable without confirmation")
	}
	s.tap("#pal-confirm")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitPresent("#pal-pending")
	s.waitPresent("#pal-approvals-none")
	approval := eval[string](s, `document.querySelector("#pal-pending").dataset.approval`)
	s.waitText("#pal-invoke", "Resume approved action")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "not granted yet")
	if !ops.Grant(approval) {
		t.Fatalf("no approval %q on the backend", approval)
	}
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "started")
	s.waitPresent(`#pal-timeline [data-type="run_completed"]`)

	// What the palette sent: the document's routes and members only, and
	// each action by its name.
	actions := map[string]bool{}
	for _, r := range ops.Requests() {
		if strings.Contains(r.Path, "approvals") {
			t.Errorf("the palette called %s %s", r.Method, r.Path)
		}
		if r.Method != "POST" {
			continue
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Errorf("%s: %v", r.Path, err)
			continue
		}
		allowed := []string{"action", "inputs", "target"}
		if strings.HasSuffix(r.Path, "/invoke") {
			allowed = append(allowed, "approval_id", "run_id", "session_id")
		}
		for k := range body {
			if !slices.Contains(allowed, k) {
				t.Errorf("%s carries %q", r.Path, k)
			}
		}
		var a string
		json.Unmarshal(body["action"], &a)
		actions[a] = true
	}
	for _, a := range []string{"search", "tail", "purge"} {
		if !actions[a] {
			t.Errorf("no request named the action %q (sent: %v)", a, actions)
		}
	}
}
