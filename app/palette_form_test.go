package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/policy"
	"workbench/pkg/schemaform"
)

// opened is a form state with c described under page context pc.
func opened(t *testing.T, c capability.Capability, pc schemaform.Context) *formState {
	t.Helper()
	s := &formState{}
	s.open(c.ID)
	s.described(c, pc)
	if s.form == nil {
		t.Fatalf("no form: %s", s.formErr)
	}
	return s
}

func preview(t *testing.T, s *formState, answer string) {
	t.Helper()
	seq, _, ok := s.previewing()
	if !ok {
		t.Fatal("nothing to preview")
	}
	pv, err := httpapi.DecodePreview([]byte(answer), s.seen, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.previewed(seq, pv, nil)
}

// The target is the page's selected target, never a value found in the
// input: a nested attachments[0].url holding a URL is an input.
func TestPaletteProposalTargetIsThePagesSelection(t *testing.T) {
	c := capability.Capability{ID: "x:y", Name: "y", InputSchema: json.RawMessage(`{"type":"object","properties":{"target":{"type":"string"},
		"attachments":{"type":"array","items":{"type":"object","properties":{"url":{"type":"string"}}}}}}`)}
	for _, tt := range []struct {
		name string
		ctx  schemaform.Context
		want string
	}{
		{"nothing selected", schemaform.Context{Route: "/"}, ""},
		{"the skill on screen", schemaform.Context{SkillID: "s-1"}, "s-1"},
		{"the selected edge", schemaform.Context{SkillID: "s-1", EdgeID: "e-2"}, "e-2"},
	} {
		s := opened(t, c, tt.ctx)
		item, err := s.form.AddItem("/attachments")
		if err != nil {
			t.Fatal(err)
		}
		s.form.Set(item+"/url", "https://example.test/file")
		s.form.Set("/target", "typed-into-the-form")
		q, ok := s.proposal()
		if !ok || q.Target != tt.want || q.Action != "y" {
			t.Errorf("%s: target %q action %q, want %q", tt.name, q.Target, q.Action, tt.want)
		}
		if !strings.Contains(string(q.Input), "https://example.test/file") {
			t.Errorf("%s: the input lost the attachment: %s", tt.name, q.Input)
		}
	}
}

// Every action of a capability has its own form, side effect and
// confirmation rule; the proposal names the action.
func TestPaletteEachActionItsOwnForm(t *testing.T) {
	c := capability.Capability{ID: "incidents", Name: "open", Title: "Incidents", Availability: capability.Available,
		Actions: []capability.Action{
			{Name: "open", InputSchema: json.RawMessage(`{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`), Effect: policy.EffectWrite},
			{Name: "purge", InputSchema: json.RawMessage(`{"type":"object","required":["older_than_days"],"properties":{"older_than_days":{"type":"integer"}}}`), Effect: policy.EffectDestructive},
		}}
	s := opened(t, c, schemaform.Context{})
	if s.seen.Name != "open" || s.form.Field("/summary") == nil {
		t.Fatalf("the first action: %s", s.seen.Name)
	}
	rev := s.revision
	s.choose("purge", s.formCtx)
	if s.seen.Name != "purge" || s.seen.Effect != policy.EffectDestructive || s.form.Field("/older_than_days") == nil ||
		s.form.Field("/summary") != nil || s.revision == rev {
		t.Fatalf("purge: %+v", s.seen)
	}
	s.form.Set("/older_than_days", "30")
	q, ok := s.proposal()
	if !ok || q.Action != "purge" || string(q.Input) != `{"older_than_days":30}` {
		t.Errorf("proposal %+v", q)
	}
	preview(t, s, `{"decision":"queued","eligible":true}`)
	if got := s.blocked(); got != "Confirm the destructive side effect first." {
		t.Errorf("blocked %q", got)
	}
	if s.label() != "Request approval" {
		t.Errorf("label %q", s.label())
	}
	s.choose("nope", s.formCtx)
	if s.formErr == "" || s.form != nil {
		t.Error("an action the capability does not have opened a form")
	}
}

// Preflight's decision decides, and a refusal shows the backend's own
// reason; a failed preflight says so beside the button; a pending
// approval is offered for resumption.
func TestPaletteInvokeBlockedByTheDecision(t *testing.T) {
	avail := capability.Capability{ID: "x", Name: "x", Availability: capability.Available, Effect: policy.EffectRead,
		InputSchema: json.RawMessage(`{"type":"object"}`)}
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
		s := opened(t, avail, schemaform.Context{})
		preview(t, s, tt.preview)
		if got := s.blocked(); got != tt.want {
			t.Errorf("%s: blocked %q, want %q", tt.name, got, tt.want)
		}
	}

	s := opened(t, avail, schemaform.Context{})
	seq, _, _ := s.previewing()
	if got := s.blocked(); got != "Waiting for the preflight preview." {
		t.Errorf("while previewing: %q", got)
	}
	s.previewed(seq, capability.Preview{}, &httpapi.UnavailableError{Op: "preflight of x", Status: 401})
	if got := s.blocked(); !strings.Contains(got, "preflight failed") || strings.Contains(got, "Waiting") || s.previewErr == "" {
		t.Errorf("after a failed preflight: %q (%q)", got, s.previewErr)
	}
	// An older answer arriving late is dropped.
	seq2, _, _ := s.previewing()
	s.previewed(seq, capability.Preview{Decision: "allow", Executable: true}, nil)
	if s.preview != nil || seq2 == seq {
		t.Error("an older preview was taken")
	}

	s = opened(t, avail, schemaform.Context{})
	q, _ := s.proposal()
	s.answered(s.seen, q, false, capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "ap-1", RunID: "r"}, nil)
	if got := s.blocked(); got != "" || s.label() != "Resume approved action" {
		t.Errorf("pending: blocked %q, label %q", got, s.label())
	}
	s.req.Decided(capability.Approval{ID: "ap-1", State: capability.ApprovalDenied})
	if s.blocked() == "" {
		t.Error("a denied approval can be resumed")
	}
}

// A synchronous answer is a success: shown through the renderer registry
// with its run selected, never as a failed invocation.
func TestPaletteSynchronousAnswerIsShownAsTheResult(t *testing.T) {
	rc, err := httpapi.DecodeReceipt(200, []byte(`{"status":"ok","result":{"columns":["title"],"rows":[["a"]]},"run_id":"run-9"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := capability.Capability{ID: "notes.search", Name: "notes.search", Effect: policy.EffectRead, RenderHint: "table",
		InputSchema: json.RawMessage(`{"type":"object"}`)}
	s := opened(t, c, schemaform.Context{})
	q, resuming, ok := s.submission()
	if ok {
		t.Fatal("submitted without a preview")
	}
	preview(t, s, `{"decision":"allow"}`)
	if q, resuming, ok = s.submission(); !ok || resuming || !s.invoking || s.blocked() != "Submitting…" {
		t.Fatalf("submission %v %v", ok, resuming)
	}
	run := s.answered(s.seen, q, false, rc, nil)
	if s.invokeErr != "" || s.result == nil || s.result.Table == nil || run != "run-9" || s.invoking ||
		!strings.Contains(s.started, "completed") || !strings.Contains(s.started, "run-9") {
		t.Errorf("err %q, result %+v, run %q, started %q", s.invokeErr, s.result, run, s.started)
	}
}

// Resuming asks the backend, whose answer is the truth; an answer for a
// capability no longer shown is recorded without becoming this form's.
func TestPaletteResumeAnswersAndOtherForms(t *testing.T) {
	purge := capability.Capability{ID: "notes.purge", Name: "notes.purge", Effect: policy.EffectDestructive, Availability: capability.Available,
		InputSchema: json.RawMessage(`{"type":"object"}`)}
	create := capability.Capability{ID: "notes.create", Name: "notes.create", Effect: policy.EffectWrite, Availability: capability.Available,
		InputSchema: json.RawMessage(`{"type":"object"}`)}
	s := opened(t, purge, schemaform.Context{})
	q, _ := s.proposal()
	ask := capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "ap-2", RunID: "r2"}
	s.answered(s.seen, q, false, ask, nil)

	// Not granted yet: the pending state stays.
	resumed, resuming, ok := s.submission()
	if !ok || !resuming || resumed.ApprovalID != "ap-2" || resumed.RunID != "r2" {
		t.Fatalf("resume %+v %v %v", resumed, resuming, ok)
	}
	s.answered(s.seen, resumed, true, ask, nil)
	if s.req.Pending() == nil || !strings.Contains(s.started, "not granted yet") {
		t.Errorf("after 'not yet': %q", s.started)
	}
	// Refused for another reason: it must be requested again.
	s.submission()
	s.answered(s.seen, resumed, true, capability.Receipt{}, &capability.RefusedError{Code: capability.RefusedApprovalMismatch, Reason: "edited"})
	if s.req.Pending() != nil || !strings.Contains(s.invokeErr, "approval_mismatch") {
		t.Errorf("after a refusal: pending %v, %q", s.req.Pending(), s.invokeErr)
	}

	// The user opened another capability before the answer came.
	s.answered(s.seen, q, false, ask, nil)
	s.open(create.ID)
	s.described(create, schemaform.Context{})
	run := s.answered(purge, q, false, capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "ap-3", RunID: "r3"}, nil)
	if s.req.Pending() != nil || s.started != "" || run != "r3" {
		t.Errorf("an answer for another capability became this form's: %v %q", s.req.Pending(), s.started)
	}
	cq, _ := s.proposal()
	s.answered(s.seen, cq, false, capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "ap-1", RunID: "r1"}, nil)
	if got := s.req.Withheld(); strings.Join(got, ",") != "ap-2,ap-3" {
		t.Errorf("withheld %v, want the destructive requests ap-2, ap-3", got)
	}
	// A failed invocation of the shown form.
	s.answered(s.seen, cq, false, capability.Receipt{}, errors.New("HTTP 502"))
	if !strings.Contains(s.invokeErr, "failed") || s.req.Pending() != nil {
		t.Errorf("after a failure: %q", s.invokeErr)
	}
}

// A form follows the page: prefilled from a context that changed, it is
// opened again; without a prefilled value it is prefilled in place; a
// pending approval keeps it as it is. The skills offered are not part of
// the context compared.
func TestPaletteFormFollowsThePage(t *testing.T) {
	c := capability.Capability{ID: "workbench:verify", Name: "verify", Availability: capability.Available,
		InputSchema: json.RawMessage(`{"type":"object","required":["skill_id"],"properties":{"skill_id":{"type":"string"},"version":{"type":"integer"}}}`)}
	skills := []schemaform.Choice{{Value: "s-1", Label: "Check out (v2)"}}
	on := schemaform.Context{Route: "/skills/{id}", SkillID: "s-1", Skills: skills}
	s := opened(t, c, on)
	if f := s.form.Field("/skill_id"); f.Raw != "s-1" || f.Inferred == nil || len(f.Choices) != 1 {
		t.Fatalf("skill_id %+v", f)
	}
	same := on
	same.Skills = append(skills, schemaform.Choice{Value: "s-2", Label: "File a bug (v1)"})
	if reopen, refill := s.stale(same); reopen || refill {
		t.Error("another list of skills made the form stale")
	}
	if reopen, _ := s.stale(schemaform.Context{Route: "/skills", Skills: skills}); !reopen {
		t.Error("a value of another page stays")
	}

	s = opened(t, c, schemaform.Context{Route: "/skills", Skills: skills})
	if f := s.form.Field("/skill_id"); f.Raw != "" || len(f.Choices) != 1 || f.Edited() {
		t.Fatalf("on /skills: %+v", f)
	}
	if _, refill := s.stale(on); !refill || !s.refill(on) || s.form.Field("/skill_id").Raw != "s-1" {
		t.Error("an empty form was not prefilled in place")
	}

	q, _ := s.proposal()
	s.answered(s.seen, q, false, capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "a", RunID: "r"}, nil)
	if reopen, refill := s.stale(schemaform.Context{Route: "/teach"}); reopen || refill {
		t.Error("a form waiting for its approval was reopened")
	}
}

// An edit that changes nothing the backend would see keeps the preview;
// one that changes the proposal clears the outcome and discards a pending
// approval.
func TestPaletteEditsAndThePendingApproval(t *testing.T) {
	c := capability.Capability{ID: "mcp/everything:echo", Name: "echo", Availability: capability.Available, Effect: policy.EffectUnknown,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)}
	s := opened(t, c, schemaform.Context{})
	s.form.Set("/message", "hi")
	preview(t, s, `{"decision":"approval_required"}`)
	if s.edited() {
		t.Error("an unchanged proposal asks for a new preview")
	}
	q, _ := s.proposal()
	s.answered(s.seen, q, false, capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: "a", RunID: "r"}, nil)
	s.form.Set("/message", "hi there")
	if !s.edited() || s.req.Pending() != nil || !s.req.Discarded() || s.started != "" {
		t.Errorf("after an edit: pending %v discarded %v started %q", s.req.Pending(), s.req.Discarded(), s.started)
	}
}
