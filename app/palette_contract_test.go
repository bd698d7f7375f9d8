//go:build !wasm

package main

import (
	"strings"
	"testing"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/policy"
	"workbench/pkg/runs"
	"workbench/pkg/schemaform"
)

// The target is the page's selected target, never a value found in the
// input: a nested attachments[0].url holding a URL is an input.
func TestProposalTargetIsThePagesSelection(t *testing.T) {
	f, err := schemaform.Compile([]byte(`{"type":"object","properties":{"target":{"type":"string"},
		"attachments":{"type":"array","items":{"type":"object","properties":{"url":{"type":"string"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	item, err := f.AddItem("/attachments")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Set(item+"/url", "https://example.test/file"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("/target", "typed-into-the-form"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		ctx  schemaform.Context
		want string
	}{
		{"nothing selected", schemaform.Context{Route: "/"}, ""},
		{"the skill on screen", schemaform.Context{SkillID: "s-1"}, "s-1"},
		{"the selected edge", schemaform.Context{SkillID: "s-1", EdgeID: "e-2"}, "e-2"},
	} {
		p := &palette{desc: &capability.Capability{ID: "x:y"}, form: f, formCtx: tt.ctx}
		q, ok := p.proposal()
		if !ok || q.Target != tt.want {
			t.Errorf("%s: target %q, want %q", tt.name, q.Target, tt.want)
		}
		if !strings.Contains(string(q.Input), "https://example.test/file") {
			t.Errorf("%s: the input lost the attachment: %s", tt.name, q.Input)
		}
	}
}

// A synchronous answer is a success: shown through the renderer registry
// with its run selected, never as a failed invocation.
func TestSynchronousAnswerIsShownAsTheResult(t *testing.T) {
	rc, err := httpapi.DecodeReceipt(200, []byte(`{"status":"ok","result":{"rows":[{"title":"a"}]},"run_id":"run-9"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := capability.Capability{ID: "notes.search", Effect: policy.EffectRead, RenderHint: "table"}
	p := &palette{selID: c.ID, desc: &c}
	p.accepted(c, capability.Proposal{CapabilityID: "notes.search"}, rc)
	if p.invokeErr != "" || p.result == nil || p.result.Table == nil || p.runSelect != "run-9" ||
		!strings.Contains(p.started, "completed") || !strings.Contains(p.started, "run-9") {
		t.Errorf("err %q, result %+v, run %q, started %q", p.invokeErr, p.result, p.runSelect, p.started)
	}
}

// Preflight's decision decides, and a refusal shows the backend's own
// reason; a pending approval is offered for resumption.
func TestInvokeBlockedByTheDecision(t *testing.T) {
	avail := &capability.Capability{ID: "x", Availability: capability.Available, Effect: policy.EffectRead}
	for _, tt := range []struct {
		name    string
		preview string
		want    string
	}{
		{"allow", `{"decision":"allow"}`, ""},
		{"deny", `{"decision":"deny","reason":"the notes policy refuses it"}`, "Denied: the notes policy refuses it"},
		{"invalid", `{"decision":"invalid","reason":"query is required"}`, "Invalid: query is required"},
		{"unavailable", `{"decision":"unavailable","message":"no token"}`, "Unavailable: no token"},
		{"not eligible", `{"decision":"allow","eligible":false}`, "Not executable now."},
	} {
		pv, err := httpapi.DecodePreview([]byte(tt.preview), *avail, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := &palette{desc: avail, preview: &pv}
		if got := p.invokeBlocked(); got != tt.want {
			t.Errorf("%s: blocked %q, want %q", tt.name, got, tt.want)
		}
	}
	p := &palette{desc: avail, pending: &capability.Pending{Receipt: capability.Receipt{ApprovalID: "ap-1"}}, pendState: capability.ApprovalPending}
	if got := p.invokeBlocked(); got != "" || p.invokeLabel() != "Resume approved action" {
		t.Errorf("pending: blocked %q, label %q", got, p.invokeLabel())
	}
	p.pendState = capability.ApprovalDenied
	if p.invokeBlocked() == "" {
		t.Error("a denied approval can be resumed")
	}
}

// The requester of a destructive action gets no Grant for it in the
// dialog it was requested from; other approvals keep theirs.
func TestRequesterCannotGrantOwnDestructiveAction(t *testing.T) {
	purge := capability.Capability{ID: "notes.purge", Effect: policy.EffectDestructive}
	create := capability.Capability{ID: "notes.create", Effect: policy.EffectWrite}
	p := &palette{selID: purge.ID, desc: &purge}
	p.accepted(purge, capability.Proposal{}, capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "ap-2", RunID: "r"})
	if p.pending == nil || p.pending.Receipt.ApprovalID != "ap-2" {
		t.Fatalf("pending %+v", p.pending)
	}
	// The user opened another capability before the answer came: the
	// answer is recorded, and does not become that form's pending state.
	p.selID, p.desc, p.pending = create.ID, &create, nil
	p.accepted(purge, capability.Proposal{}, capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "ap-3", RunID: "r"})
	if p.pending != nil {
		t.Error("an answer for another capability became this form's pending approval")
	}
	p.accepted(create, capability.Proposal{}, capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "ap-1", RunID: "r"})
	if got := p.withheld(); len(got) != 2 || got[0] != "ap-2" || got[1] != "ap-3" {
		t.Errorf("withheld %v, want [ap-2 ap-3]", got)
	}
}

func TestRunStatusAndLostEvents(t *testing.T) {
	if got := runStatus(false, false, runs.StateCompleted); got != "State: completed" {
		t.Errorf("finished run: %q", got)
	}
	if got := runStatus(false, false, ""); strings.Contains(got, "Replaying") {
		t.Errorf("a replayed run without a state reads %q", got)
	}
	if got := runStatus(true, false, ""); got != "Replaying" {
		t.Errorf("replaying: %q", got)
	}
	if got := lostEvents(1, 4); got != "Events 1–4 are no longer retained: the timeline starts at #5." {
		t.Errorf("%q", got)
	}
	if got := lostEvents(3, 3); !strings.HasPrefix(got, "Event 3 is") {
		t.Errorf("%q", got)
	}
}
