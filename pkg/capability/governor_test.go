package capability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/policy"
	"workbench/pkg/runs"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

func counter(prefix string) func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%s-%04d", prefix, n.Add(1)) }
}

var verifierOnce = sync.OnceValues(func() (*verify.Verifier, error) {
	v, err := verify.Standard()
	if err != nil {
		return nil, err
	}
	return v, nil
})

type rig struct {
	gov         *Governor
	wb          *BuiltIn
	destructive atomic.Bool
	approvals   atomic.Int64
}

// newRig builds a Governor over the simulator (world docs-and-git) and
// the workbench's own actions on an empty in-memory library, with engine
// (nil: workbench-capabilities-v1).
func newRig(t *testing.T, engine *policy.Engine) *rig {
	t.Helper()
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verifierOnce()
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{}
	r.wb = withFlows(&BuiltIn{Store: mem.New(), Verifier: v}, workbench.Deps{})
	cat, err := NewCatalog(&Body{Body: s, Trusted: true}, r.wb)
	if err != nil {
		t.Fatal(err)
	}
	r.gov = NewGovernor(context.Background(), cat, GovernorOptions{
		Engine: engine, Log: runs.NewLog(runs.WithLogIDs(counter("ev"))),
		DestructiveMode: r.destructive.Load, NewID: counter("id"),
		OnApprovals: func() { r.approvals.Add(1) },
	})
	return r
}

// events waits for dispatched work and returns the run's events.
func (r *rig) events(t *testing.T, run runs.RunID) []runs.Event {
	t.Helper()
	r.gov.Wait()
	tl := runs.NewTimeline(0)
	if _, err := runs.Replay(context.Background(), r.gov.Log(), run, tl, 0, nil); err != nil {
		t.Fatal(err)
	}
	return tl.Events()
}

func types(es []runs.Event) string {
	var ts []string
	for _, e := range es {
		ts = append(ts, e.Type)
	}
	return strings.Join(ts, " ")
}

func last(es []runs.Event, typ string) map[string]any {
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Type == typ {
			var m map[string]any
			json.Unmarshal(es[i].Data, &m)
			return m
		}
	}
	return nil
}

func TestInvokeReadIsAsyncAndRecorded(t *testing.T) {
	r := newRig(t, nil)
	rc, err := r.gov.Invoke(context.Background(), Proposal{
		CapabilityID: "simulator:file_list", Input: json.RawMessage(`{"path":"/tmp"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Status != StatusRunning || rc.RunID == "" || rc.SessionID == "" || string(rc.RunID) == string(rc.SessionID) {
		t.Fatalf("receipt %+v", rc)
	}
	if rc.Decision.Decision != skill.DecisionAllow || rc.Decision.BlockID == "" || policy.IsPreview(rc.Decision) {
		t.Errorf("decision %+v", rc.Decision)
	}
	es := r.events(t, rc.RunID)
	if got := types(es); got != "run_started policy_decision tool_call tool_result run_completed" {
		t.Fatalf("events: %s", got)
	}
	res := last(es, runs.EventToolResult)
	if res["status"] != "ok" || res["render_hint"] != HintJSON {
		t.Errorf("tool_result %v", res)
	}
	run, _ := r.gov.Log().Run(rc.RunID)
	if run.State != runs.StateCompleted || run.Kind != runs.KindInvocation || run.Capability != "simulator:file_list" {
		t.Errorf("run %+v", run)
	}
}

func TestInvokeRefusals(t *testing.T) {
	tests := []struct {
		name    string
		engine  *policy.Engine
		p       Proposal
		code    string
		problem string
		run     runs.State // the state of the run the refusal left, "" for none
	}{
		{name: "invalid input", p: Proposal{CapabilityID: "simulator:file_read", Input: json.RawMessage(`{"path":""}`)},
			code: RefusedInvalid, problem: "/path"},
		{name: "missing member", p: Proposal{CapabilityID: "simulator:file_read"}, code: RefusedInvalid, problem: "/"},
		{name: "write not confirmed", p: Proposal{CapabilityID: "simulator:browser_click", Input: json.RawMessage(`{"name":"Docs"}`)},
			code: RefusedConfirmationRequired},
		{name: "unavailable", p: Proposal{CapabilityID: "workbench:verify", Input: json.RawMessage(`{"skill_id":"x"}`)},
			code: RefusedUnavailable},
		{name: "denied by workbench-default-v1", engine: policy.Default(),
			p:    Proposal{CapabilityID: "simulator:file_delete", Input: json.RawMessage(`{"path":"README.md"}`), Confirmed: true},
			code: RefusedDenied, run: runs.StateFailed},
		{name: "run id without approval", p: Proposal{CapabilityID: "simulator:file_list", RunID: "r-1"}, code: RefusedInvalid},
		{name: "unknown approval", p: Proposal{CapabilityID: "simulator:file_list", ApprovalID: "nope"}, code: RefusedApprovalUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, tt.engine)
			rc, err := r.gov.Invoke(context.Background(), tt.p)
			var re *RefusedError
			if !errors.As(err, &re) || re.Code != tt.code {
				t.Fatalf("got %v, want refusal %s", err, tt.code)
			}
			if tt.problem != "" && !strings.HasPrefix(strings.Join(re.Problems, "|"), tt.problem) {
				t.Errorf("problems %q, want one at %s", re.Problems, tt.problem)
			}
			list, _ := r.gov.Log().Runs(context.Background(), "")
			if tt.run == "" {
				if len(list) != 0 {
					t.Errorf("a refusal before authorization started a run: %+v", list)
				}
				return
			}
			if len(list) != 1 || list[0].ID != rc.RunID || list[0].State != tt.run {
				t.Fatalf("runs %+v", list)
			}
			es := r.events(t, rc.RunID)
			d := last(es, runs.EventDecision)["authorization"].(map[string]any)
			if d["decision"] != skill.DecisionDeny || re.Decision == nil || !strings.HasPrefix(re.Reason, "host-write:") {
				t.Errorf("recorded decision %v, refusal %+v", d, re)
			}
		})
	}
	t.Run("not found", func(t *testing.T) {
		r := newRig(t, nil)
		_, err := r.gov.Invoke(context.Background(), Proposal{CapabilityID: "simulator:nope"})
		if !errors.As(err, new(*NotFoundError)) {
			t.Errorf("got %v", err)
		}
	})
}

func write(path, content string) Proposal {
	in, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return Proposal{CapabilityID: "simulator:file_write", Input: in, Target: path, Confirmed: true}
}

func readFile(t *testing.T, r *rig, path string) string {
	t.Helper()
	rc, err := r.gov.Invoke(context.Background(), Proposal{CapabilityID: "simulator:file_read",
		Input: json.RawMessage(fmt.Sprintf(`{"path":%q}`, path))})
	if err != nil {
		t.Fatal(err)
	}
	res := last(r.events(t, rc.RunID), runs.EventToolResult)
	s, _ := res["text"].(string)
	return s
}

func TestApprovalThenResumeExact(t *testing.T) {
	r := newRig(t, nil)
	ctx := context.Background()
	p := write("approved.txt", "hello")
	rc, err := r.gov.Invoke(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Status != StatusApprovalRequired || rc.ApprovalID == "" || rc.Decision.Decision != skill.DecisionApprovalRequired {
		t.Fatalf("receipt %+v", rc)
	}
	run, _ := r.gov.Log().Run(rc.RunID)
	if run.State != runs.StateWaitingForInput {
		t.Errorf("run state %s", run.State)
	}
	pend := Pending{Proposal: p, Receipt: rc}
	pending := r.gov.Approvals(ApprovalPending)
	if len(pending) != 1 || pending[0].ID != rc.ApprovalID || pending[0].Target != "approved.txt" {
		t.Fatalf("approvals %+v", pending)
	}

	// Resuming before the grant is refused and changes nothing.
	if _, err := r.gov.Invoke(ctx, pend.Resume()); !isRefusal(err, RefusedApprovalPending) {
		t.Fatalf("resume before grant: %v", err)
	}
	if _, err := r.gov.Grant(rc.ApprovalID); err != nil {
		t.Fatal(err)
	}
	// The same inputs with members reordered are the same proposal.
	again := pend.Resume()
	again.Input = json.RawMessage(`{"content":"hello", "path":"approved.txt"}`)
	rc2, err := r.gov.Invoke(ctx, again)
	if err != nil {
		t.Fatal(err)
	}
	if rc2.Status != StatusRunning || rc2.RunID != rc.RunID || rc2.SessionID != rc.SessionID {
		t.Fatalf("resume receipt %+v, first %+v", rc2, rc)
	}
	es := r.events(t, rc.RunID)
	want := "run_started policy_decision waiting_for_input approval_granted policy_decision tool_call tool_result run_completed"
	if got := types(es); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	if last(es, runs.EventDecision)["approval_id"] != rc.ApprovalID {
		t.Error("the resumed decision does not name the approval")
	}
	if got := readFile(t, r, "approved.txt"); !strings.Contains(got, "hello") {
		t.Errorf("the approved write did not happen: %q", got)
	}
	// An approval is spent once.
	if _, err := r.gov.Invoke(ctx, pend.Resume()); !isRefusal(err, RefusedApprovalUnknown) {
		t.Errorf("second resume: %v", err)
	}
	if r.approvals.Load() < 2 {
		t.Error("OnApprovals was not called")
	}
}

func isRefusal(err error, code string) bool {
	var re *RefusedError
	return errors.As(err, &re) && re.Code == code
}

func TestEditingDiscardsApproval(t *testing.T) {
	edits := []struct {
		name string
		edit func(Proposal) Proposal
	}{
		{"inputs", func(p Proposal) Proposal {
			p.Input = json.RawMessage(`{"path":"x.txt","content":"changed"}`)
			return p
		}},
		{"target", func(p Proposal) Proposal { p.Target = "elsewhere"; return p }},
		{"action", func(p Proposal) Proposal {
			p.CapabilityID, p.Input = "simulator:file_delete", json.RawMessage(`{"path":"x.txt"}`)
			return p
		}},
		{"run id", func(p Proposal) Proposal { p.RunID = "another-run"; return p }},
		{"session id", func(p Proposal) Proposal { p.SessionID = "another-session"; return p }},
	}
	for _, tt := range edits {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, nil)
			ctx := context.Background()
			p := write("x.txt", "original")
			rc, err := r.gov.Invoke(ctx, p)
			if err != nil || rc.Status != StatusApprovalRequired {
				t.Fatalf("%+v %v", rc, err)
			}
			pend := Pending{Proposal: p, Receipt: rc}
			if _, err := r.gov.Grant(rc.ApprovalID); err != nil {
				t.Fatal(err)
			}
			edited := tt.edit(pend.Resume())
			if tt.name == "inputs" || tt.name == "target" || tt.name == "action" {
				if !pend.Edited(edited) {
					t.Error("Pending.Edited missed the edit")
				}
			}
			if _, err := r.gov.Invoke(ctx, edited); !isRefusal(err, RefusedApprovalMismatch) {
				t.Fatalf("edited resume: %v", err)
			}
			// The pending state is gone: even the exact proposal is refused now.
			if _, err := r.gov.Invoke(ctx, pend.Resume()); !isRefusal(err, RefusedApprovalUnknown) {
				t.Errorf("exact resume after an edit: %v", err)
			}
			if a := r.gov.Approvals(); len(a) != 1 || a[0].State != ApprovalDiscarded {
				t.Errorf("approvals %+v", a)
			}
			run, _ := r.gov.Log().Run(rc.RunID)
			if run.State != runs.StateCancelled {
				t.Errorf("run %s", run.State)
			}
			if got := readFile(t, r, "x.txt"); strings.Contains(got, "original") {
				t.Error("the discarded write happened")
			}
		})
	}
}

func TestDenyingApprovalCancelsRun(t *testing.T) {
	r := newRig(t, nil)
	rc, err := r.gov.Invoke(context.Background(), write("y.txt", "no"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.gov.Deny(rc.ApprovalID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.gov.Grant(rc.ApprovalID); err == nil {
		t.Error("a denied approval was granted")
	}
	if _, err := r.gov.Invoke(context.Background(), Pending{Proposal: write("y.txt", "no"), Receipt: rc}.Resume()); !isRefusal(err, RefusedApprovalDenied) {
		t.Errorf("resume after denial: %v", err)
	}
	run, _ := r.gov.Log().Run(rc.RunID)
	if run.State != runs.StateCancelled {
		t.Errorf("run %s", run.State)
	}
}

func TestDestructiveModeNeedsNoApproval(t *testing.T) {
	r := newRig(t, nil)
	r.destructive.Store(true)
	rc, err := r.gov.Invoke(context.Background(), write("z.txt", "direct"))
	if err != nil || rc.Status != StatusRunning {
		t.Fatalf("%+v %v", rc, err)
	}
	if !strings.HasPrefix(rc.Decision.Reason, "write-destructive-mode:") {
		t.Errorf("decided by %s", rc.Decision.Reason)
	}
}

func TestPreflight(t *testing.T) {
	tests := []struct {
		name       string
		p          Proposal
		decision   string
		effect     policy.Effect
		confirm    bool
		executable bool
		problems   bool
	}{
		{"read", Proposal{CapabilityID: "simulator:file_list"}, skill.DecisionAllow, policy.EffectRead, false, true, false},
		{"destructive", write("a.txt", "x"), skill.DecisionApprovalRequired, policy.EffectDestructive, true, true, false},
		{"browser write", Proposal{CapabilityID: "simulator:browser_click", Input: json.RawMessage(`{"name":"Docs"}`)},
			skill.DecisionAllow, policy.EffectWrite, true, true, false},
		{"invalid", Proposal{CapabilityID: "simulator:file_write", Input: json.RawMessage(`{"path":3}`)},
			skill.DecisionApprovalRequired, policy.EffectDestructive, true, false, true},
		{"unavailable", Proposal{CapabilityID: "workbench:verify", Input: json.RawMessage(`{"skill_id":"s"}`)},
			skill.DecisionAllow, policy.EffectRead, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, nil)
			pv, err := r.gov.Preflight(context.Background(), tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if pv.Decision != tt.decision || pv.SideEffect != tt.effect || pv.NeedsConfirmation != tt.confirm ||
				pv.Executable != tt.executable || (len(pv.Problems) > 0) != tt.problems {
				t.Errorf("preview %+v", pv)
			}
			if !pv.NonAuthoritative || !policy.IsPreview(pv.Authorization) || pv.Reason == "" {
				t.Errorf("the preview looks like a grant: %+v", pv.Authorization)
			}
			if pv.ApprovalRequired != (tt.decision == skill.DecisionApprovalRequired) {
				t.Errorf("approval required %v", pv.ApprovalRequired)
			}
			if list, _ := r.gov.Log().Runs(context.Background(), ""); len(list) != 0 {
				t.Error("preflight started a run")
			}
		})
	}
}

func TestResultSecretsStayRedacted(t *testing.T) {
	r := newRig(t, nil)
	r.destructive.Store(true)
	key := "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)
	rc, err := r.gov.Invoke(context.Background(), write("key.txt", "OPENROUTER_API_KEY="+key))
	if err != nil {
		t.Fatal(err)
	}
	r.gov.Wait()
	got := readFile(t, r, "key.txt")
	if strings.Contains(got, key) || !strings.Contains(got, "[redacted:openrouter_key]") {
		t.Errorf("tool_result text %q", got)
	}
	for _, e := range r.events(t, rc.RunID) {
		if strings.Contains(string(e.Data), key) {
			t.Errorf("event %s holds the key", e.Type)
		}
	}
}

// withFlows gives w the flows a front-end would: over w's own library,
// verifier and model (read when a flow asks, so a test that sets
// w.Model later is seen), with d's bodies, authorizers and standing
// answer.
func withFlows(w *BuiltIn, d workbench.Deps) *BuiltIn {
	d.Verifier = func(context.Context) (*verify.Verifier, error) { return w.Verifier, nil }
	d.Store = func(context.Context) (store.Store, error) { return w.Store, nil }
	d.Models = func(context.Context) (workbench.Model, error) { return w.Model, nil }
	w.Flows = workbench.New(d)
	return w
}
