package capability

import (
	"context"
	"errors"
	"slices"
	"testing"

	"workbench/pkg/policy"
)

// The Requester driven by a real Governor's answers, as the palette
// drives it: request, "not yet", an edit that discards, a denial that
// blocks, a grant that runs.
func TestRequesterFollowsTheBackendsAnswers(t *testing.T) {
	r := newRig(t, nil)
	ctx := context.Background()
	var req Requester
	p := write("req.txt", "one")
	if got := req.Label(true); got != "Request approval" {
		t.Errorf("label before a request: %q", got)
	}

	rc, err := r.gov.Invoke(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	req.Answered(policy.EffectWrite, p, rc, true)
	if req.Pending() == nil || req.State() != ApprovalPending || req.Label(true) != "Resume approved action" || req.Blocked() != "" {
		t.Fatalf("after the request: %+v %q %q %q", req.Pending(), req.State(), req.Label(true), req.Blocked())
	}

	// Resumed before the grant: the backend says not yet; still waiting.
	q, ok := req.Resume(false)
	if !ok || q.ApprovalID != rc.ApprovalID || q.RunID != rc.RunID || q.SessionID != rc.SessionID || !q.Confirmed {
		t.Fatalf("resume proposal %+v %v", q, ok)
	}
	if out := req.Resumed(r.gov.Invoke(ctx, q)); out != ApprovalPending || req.Pending() == nil {
		t.Fatalf("before the grant: %q, pending %v", out, req.Pending())
	}

	// An unchanged form keeps it; an edit discards it.
	if req.Edited(p) || req.Discarded() {
		t.Error("the same proposal discarded the approval")
	}
	if !req.Edited(write("req.txt", "two")) || req.Pending() != nil || !req.Discarded() || req.Label(false) != "Invoke" {
		t.Fatalf("after an edit: pending %v, discarded %v", req.Pending(), req.Discarded())
	}

	// A new request, denied on the approvals surface: it cannot resume.
	p2 := write("req.txt", "two")
	rc2, err := r.gov.Invoke(ctx, p2)
	if err != nil {
		t.Fatal(err)
	}
	req.Answered(policy.EffectWrite, p2, rc2, true)
	if req.Discarded() {
		t.Error("a new request still reads as discarded")
	}
	a, err := r.gov.Deny(rc2.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	req.Decided(Approval{ID: "another", State: ApprovalGranted})
	if req.State() != ApprovalPending {
		t.Error("another approval's decision moved this one")
	}
	req.Decided(a)
	if req.Blocked() == "" {
		t.Error("a denied approval can be resumed")
	}

	// A third, granted: the resume runs and nothing waits.
	p3 := write("req.txt", "three")
	rc3, err := r.gov.Invoke(ctx, p3)
	if err != nil {
		t.Fatal(err)
	}
	req.Answered(policy.EffectWrite, p3, rc3, true)
	if _, err := r.gov.Grant(rc3.ApprovalID); err != nil {
		t.Fatal(err)
	}
	q, _ = req.Resume(false)
	ran, err := r.gov.Invoke(ctx, q)
	if out := req.Resumed(ran, err); out != ApprovalGranted || req.Pending() != nil || ran.Status != StatusRunning {
		t.Fatalf("after the grant: %q, %+v, %v", out, ran, err)
	}
	r.gov.Wait()

	// Spent: the same resume again is refused, and nothing waits.
	req.Answered(policy.EffectWrite, p3, rc3, true)
	q, _ = req.Resume(false)
	if out := req.Resumed(r.gov.Invoke(ctx, q)); out != "" || req.Pending() != nil {
		t.Errorf("a spent approval: %q, pending %v", out, req.Pending())
	}
}

func TestRequesterTransitions(t *testing.T) {
	p := Proposal{CapabilityID: "notes.purge", Action: "purge", Input: []byte(`{"folder":"old"}`)}
	ask := Receipt{Status: StatusApprovalRequired, ApprovalID: "ap-1", RunID: "run-1"}
	tests := []struct {
		name        string
		do          func(r *Requester)
		pending     bool
		state       string
		blocked     bool
		discarded   bool
		withheldIDs []string
	}{
		{"requested while shown", func(r *Requester) { r.Answered(policy.EffectWrite, p, ask, true) },
			true, ApprovalPending, false, false, nil},
		{"requested after the form closed", func(r *Requester) { r.Answered(policy.EffectDestructive, p, ask, false) },
			false, "", false, false, []string{"ap-1"}},
		{"a destructive request is withheld from Grant", func(r *Requester) { r.Answered(policy.EffectDestructive, p, ask, true) },
			true, ApprovalPending, false, false, []string{"ap-1"}},
		{"a running answer leaves nothing waiting", func(r *Requester) {
			r.Answered(policy.EffectWrite, p, ask, true)
			r.Answered(policy.EffectWrite, p, Receipt{Status: StatusRunning, RunID: "run-2"}, true)
		}, false, "", false, false, nil},
		{"another action of the same capability is an edit", func(r *Requester) {
			r.Answered(policy.EffectWrite, p, ask, true)
			q := p
			q.Action = "archive"
			r.Edited(q)
		}, false, "", false, true, nil},
		{"granted elsewhere", func(r *Requester) {
			r.Answered(policy.EffectWrite, p, ask, true)
			r.Decided(Approval{ID: "ap-1", State: ApprovalGranted})
		}, true, ApprovalGranted, false, false, nil},
		{"denied elsewhere", func(r *Requester) {
			r.Answered(policy.EffectWrite, p, ask, true)
			r.Decided(Approval{ID: "ap-1", State: ApprovalDenied})
		}, true, ApprovalDenied, true, false, nil},
		{"the resume is refused as denied", func(r *Requester) {
			r.Answered(policy.EffectWrite, p, ask, true)
			r.Resumed(Receipt{}, &RefusedError{Code: RefusedApprovalDenied})
		}, true, ApprovalDenied, true, false, nil},
		{"the resume is refused otherwise", func(r *Requester) {
			r.Answered(policy.EffectWrite, p, ask, true)
			r.Resumed(Receipt{}, &RefusedError{Code: RefusedApprovalMismatch})
		}, false, "", false, false, nil},
		{"the resume fails on the way", func(r *Requester) {
			r.Answered(policy.EffectWrite, p, ask, true)
			r.Resumed(Receipt{}, errors.New("HTTP 502"))
		}, false, "", false, false, nil},
		{"a failed invocation", func(r *Requester) {
			r.Answered(policy.EffectWrite, p, ask, true)
			r.Failed()
		}, false, "", false, false, nil},
		{"closed keeps what was requested", func(r *Requester) {
			r.Answered(policy.EffectDestructive, p, ask, true)
			r.Closed()
		}, false, "", false, false, []string{"ap-1"}},
		{"reset forgets it", func(r *Requester) {
			r.Answered(policy.EffectDestructive, p, ask, true)
			r.Reset()
		}, false, "", false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Requester
			tt.do(&r)
			if (r.Pending() != nil) != tt.pending || r.State() != tt.state || (r.Blocked() != "") != tt.blocked ||
				r.Discarded() != tt.discarded || !slices.Equal(r.Withheld(), tt.withheldIDs) {
				t.Errorf("pending %v, state %q, blocked %q, discarded %v, withheld %v",
					r.Pending() != nil, r.State(), r.Blocked(), r.Discarded(), r.Withheld())
			}
		})
	}
}

// An action of a capability is part of what an approval binds.
func TestActionIsPartOfTheProposal(t *testing.T) {
	c := Capability{ID: "notes", Name: "search", Actions: []Action{
		{Name: "search", InputSchema: []byte(`{"type":"object"}`), Effect: policy.EffectRead, RenderHint: HintTable},
		{Name: "purge", Description: "Delete a folder.", InputSchema: []byte(`{"type":"object","required":["folder"]}`), Effect: policy.EffectDestructive},
	}}
	got, err := c.Act("purge")
	if err != nil || got.Name != "purge" || got.Effect != policy.EffectDestructive || got.Description != "Delete a folder." || string(got.InputSchema) != `{"type":"object","required":["folder"]}` {
		t.Errorf("purge: %+v %v", got, err)
	}
	if got, err := c.Act(""); err != nil || got.Name != "search" || got.RenderHint != HintTable {
		t.Errorf("the first action: %+v %v", got, err)
	}
	var ae *ActionError
	if _, err := c.Act("tail"); !errors.As(err, &ae) || !slices.Equal(ae.Actions, []string{"search", "purge"}) {
		t.Errorf("an action it does not have: %v", err)
	}
	one := Capability{ID: "simulator:file_list", Name: "file_list"}
	if l := one.ActionList(); len(l) != 1 || l[0].Name != "file_list" {
		t.Errorf("a capability of one action: %+v", l)
	}
	a := Proposal{CapabilityID: "notes", Action: "search"}
	if !a.Same(a) {
		t.Error("a proposal differs from itself")
	}
	if a.Same(Proposal{CapabilityID: "notes", Action: "purge"}) {
		t.Error("two actions of a capability are the same proposal")
	}
}

// The Governor refuses an action its capability does not have, before
// any run starts.
func TestGovernorRefusesAnUnknownAction(t *testing.T) {
	r := newRig(t, nil)
	ctx := context.Background()
	p := Proposal{CapabilityID: "simulator:file_list", Action: "file_list", Input: []byte(`{"path":"/tmp"}`)}
	if pv, err := r.gov.Preflight(ctx, p); err != nil || pv.Decision != "allow" {
		t.Fatalf("its own action: %+v %v", pv, err)
	}
	p.Action = "shell_exec"
	if _, err := r.gov.Preflight(ctx, p); !isRefusal(err, RefusedInvalid) {
		t.Errorf("preflight of another action: %v", err)
	}
	if _, err := r.gov.Invoke(ctx, p); !isRefusal(err, RefusedInvalid) {
		t.Errorf("invoke of another action: %v", err)
	}
	if list, _ := r.gov.Log().Runs(ctx, ""); len(list) != 0 {
		t.Errorf("a refused action started %d runs", len(list))
	}
}
