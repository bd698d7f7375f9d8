package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/capability/httpapi/altbackend"
	"workbench/pkg/capability/httpapi/contracttest"
	"workbench/pkg/capability/httpapi/opsbackend"
	"workbench/pkg/policy"
	"workbench/pkg/runs"
)

// bench is one backend under test and what the tests need to know of
// it: proposals of each kind, how its approvals are granted elsewhere,
// and how its retained window is made to move past a follower.
type bench struct {
	client *httpapi.Client
	// usable, unusable and failures are what its catalog lists.
	usable, unusable, failures int
	// degraded and unavailable are capability ids with those states.
	degraded, unavailable string
	// read runs (synchronously or not); deny is refused by the policy;
	// invalid lacks a required input; approve needs approval.
	read, deny, invalid, approve capability.Proposal
	// sync says the read answers synchronously.
	sync bool
	// grant grants an approval on the backend's own surface.
	grant func(t *testing.T, id string)
	// prune makes the events of run up to upTo no longer retained, and
	// says which sequences a replay will miss (from, to).
	prune func(t *testing.T, run runs.RunID) (from, to int64)
	// resetReason is a word the stream_reset's reason holds, and
	// denyReason a word of the reason a denial gives.
	resetReason, denyReason string
	// paths lists the method and path of every request the backend got.
	paths func() []string
}

// backends are the three independently written backends: the
// conformance server over the Governor; altbackend, written from the
// document with other member names and answer shapes; and opsbackend,
// written from the document alone by another reading (several actions
// per capability, the invoke contract in other words, members in another
// order, optional ones absent, a reset without a sequence).
var backends = []struct {
	name  string
	start func(t *testing.T) *bench
}{
	{"contracttest", func(t *testing.T) *bench {
		world, err := fixtures.World("docs-and-git")
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.New(world)
		if err != nil {
			t.Fatal(err)
		}
		cat, err := capability.NewCatalog(&capability.Body{Body: s, Trusted: true}, &capability.MCPServer{Name: "gone"})
		if err != nil {
			t.Fatal(err)
		}
		var n atomic.Int64
		// A window of 3 events, so that a finished run's first events are
		// no longer retained.
		gov := capability.NewGovernor(context.Background(), cat, capability.GovernorOptions{
			Log:   runs.NewLog(runs.WithRetain(3)),
			NewID: func() string { return fmt.Sprintf("id-%04d", n.Add(1)) }})
		srv := contracttest.Start(t, capability.Local{Governor: gov})
		c, err := httpapi.New(srv.URL, http.DefaultClient)
		if err != nil {
			t.Fatal(err)
		}
		return &bench{
			client: c, usable: 10, failures: 1,
			read:    capability.Proposal{CapabilityID: "simulator:file_list", Input: json.RawMessage(`{"path":"/tmp"}`)},
			invalid: capability.Proposal{CapabilityID: "simulator:file_read", Input: json.RawMessage(`{}`)},
			approve: capability.Proposal{CapabilityID: "simulator:file_write", Input: json.RawMessage(`{"path":"a.txt","content":"x"}`),
				Target: "a.txt", Confirmed: true},
			grant: func(t *testing.T, id string) {
				if _, err := gov.Grant(id); err != nil {
					t.Fatal(err)
				}
			},
			prune: func(t *testing.T, run runs.RunID) (int64, int64) {
				srv.ResetNextFollow(0)
				r, err := gov.Log().Run(run)
				if err != nil {
					t.Fatal(err)
				}
				return 1, r.LastSequence - 3
			},
			resetReason: "retained window",
			paths: func() []string {
				var out []string
				for _, r := range srv.Requests() {
					out = append(out, r.Method+" "+r.Path)
				}
				return out
			},
		}
	}},
	{"altbackend", func(t *testing.T) *bench {
		alt := altbackend.Start(t, 5*time.Millisecond)
		c, err := httpapi.New(alt.URL, http.DefaultClient)
		if err != nil {
			t.Fatal(err)
		}
		return &bench{
			client: c, usable: 6, unusable: 2, failures: 1,
			degraded: "notes.export", unavailable: "crm.sync",
			read:    capability.Proposal{CapabilityID: "notes.search", Input: json.RawMessage(`{"query":"milk"}`)},
			deny:    capability.Proposal{CapabilityID: "notes.search", Input: json.RawMessage(`{"query":"forbidden things"}`)},
			invalid: capability.Proposal{CapabilityID: "notes.create", Input: json.RawMessage(`{}`), Confirmed: true},
			approve: capability.Proposal{CapabilityID: "notes.purge", Input: json.RawMessage(`{"folder":"old"}`), Target: "folder:old", Confirmed: true},
			sync:    true,
			grant: func(t *testing.T, id string) {
				if !alt.Grant(id) {
					t.Fatalf("no approval %s", id)
				}
			},
			prune: func(t *testing.T, run runs.RunID) (int64, int64) {
				alt.Forget(string(run), 2)
				return 1, 2
			},
			resetReason: "pruned", denyReason: "forbidden",
			paths: func() []string {
				var out []string
				for _, r := range alt.Requests() {
					out = append(out, r.Method+" "+r.Path)
				}
				return out
			},
		}
	}},
	{"opsbackend", func(t *testing.T) *bench {
		ops := opsbackend.Start(t, 5*time.Millisecond)
		c, err := httpapi.New(ops.URL, http.DefaultClient)
		if err != nil {
			t.Fatal(err)
		}
		return &bench{
			client: c, usable: 4, degraded: "deploys",
			read:    capability.Proposal{CapabilityID: "logs", Action: "search", Input: json.RawMessage(`{"query":"disk"}`)},
			deny:    capability.Proposal{CapabilityID: "logs", Action: "search", Input: json.RawMessage(`{"query":"password reset"}`)},
			invalid: capability.Proposal{CapabilityID: "incidents", Action: "open", Input: json.RawMessage(`{}`), Confirmed: true},
			approve: capability.Proposal{CapabilityID: "incidents", Action: "purge", Input: json.RawMessage(`{"older_than_days":30}`),
				Target: "incidents", Confirmed: true},
			grant: func(t *testing.T, id string) {
				if !ops.Grant(id) {
					t.Fatalf("no approval %s", id)
				}
			},
			// The backend retains the newest 4 events: a finished search
			// (5 events) has lost its first.
			prune:       func(t *testing.T, run runs.RunID) (int64, int64) { return 1, 1 },
			resetReason: "retention_window_exceeded", denyReason: "credentials",
			paths: func() []string {
				var out []string
				for _, r := range ops.Requests() {
					out = append(out, r.Method+" "+r.Path)
				}
				return out
			},
		}
	}},
}

func TestCatalogOfEveryBackend(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.start(t)
			l, err := s.client.Catalog(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Capabilities) != s.usable || len(l.Unusable) != s.unusable || len(l.Failures) != s.failures {
				t.Fatalf("%d usable, %d unusable %v, %d failures", len(l.Capabilities), len(l.Unusable), l.Unusable, len(l.Failures))
			}
			for _, u := range l.Unusable {
				if u.Reason == "" {
					t.Errorf("unusable entry %d without a reason", u.Index)
				}
			}
			byID := map[string]capability.Capability{}
			for _, c := range l.Capabilities {
				byID[c.ID] = c
				if len(c.InputSchema) == 0 || c.Effect == "" || c.Availability == "" || c.Title == "" {
					t.Errorf("%s decoded incompletely: %+v", c.ID, c)
				}
			}
			if s.degraded != "" && (byID[s.degraded].Availability != capability.Degraded || len(byID[s.degraded].Reasons) == 0) {
				t.Errorf("%s: %+v", s.degraded, byID[s.degraded])
			}
			if s.unavailable != "" && (byID[s.unavailable].Availability != capability.Unavailable || len(byID[s.unavailable].Reasons) == 0) {
				t.Errorf("%s: %+v", s.unavailable, byID[s.unavailable])
			}
			for _, p := range []capability.Proposal{s.read, s.approve} {
				d, err := s.client.Describe(context.Background(), p.CapabilityID)
				if err != nil || d.ID != p.CapabilityID || d.Effect != byID[p.CapabilityID].Effect {
					t.Errorf("describe %s: %+v %v", p.CapabilityID, d, err)
				}
			}
			if byID[s.read.CapabilityID].Effect != policy.EffectRead {
				t.Errorf("the read capability's effect is %s", byID[s.read.CapabilityID].Effect)
			}
		})
	}
}

func TestPreflightDecidesFromItsDecision(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.start(t)
			ctx := context.Background()
			if _, err := s.client.Catalog(ctx); err != nil {
				t.Fatal(err)
			}
			pv, err := s.client.Preflight(ctx, s.read)
			if err != nil || pv.Decision != "allow" || !pv.Executable || pv.NeedsConfirmation {
				t.Errorf("read: %+v %v", pv, err)
			}
			pv, err = s.client.Preflight(ctx, s.approve)
			if err != nil || !pv.ApprovalRequired || !pv.Executable || !pv.NeedsConfirmation {
				t.Errorf("approval: %+v %v", pv, err)
			}
			pv, err = s.client.Preflight(ctx, s.invalid)
			if err != nil || pv.Executable || pv.Reason == "" && len(pv.Problems) == 0 {
				t.Errorf("invalid: %+v %v", pv, err)
			}
			if s.deny.CapabilityID != "" {
				pv, err = s.client.Preflight(ctx, s.deny)
				if err != nil || pv.Decision != "deny" || pv.Executable || !strings.Contains(pv.Reason, s.denyReason) {
					t.Errorf("deny: %+v %v", pv, err)
				}
				var re *capability.RefusedError
				if _, err := s.client.Invoke(ctx, s.deny); !errors.As(err, &re) || re.Code != capability.RefusedDenied || re.Reason == "" {
					t.Errorf("invoke of a denied action: %v", err)
				}
			}
			var re *capability.RefusedError
			if _, err := s.client.Invoke(ctx, s.invalid); !errors.As(err, &re) || re.Code != capability.RefusedInvalid {
				t.Errorf("invoke of an invalid input: %v", err)
			}
		})
	}
}

// followToEnd replays and follows run until it ends, as the runs panel
// does, and returns the state it reached and the events.
func followToEnd(t *testing.T, src runs.Source, run runs.RunID) (runs.State, []runs.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tl := runs.NewTimeline(0)
	st, err := runs.Replay(ctx, src, run, tl, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Terminal() {
		res, err := runs.Follow(ctx, src, run, tl, nil)
		if err != nil || res.Outcome != runs.OutcomeEnded {
			t.Fatalf("follow: %+v %v", res, err)
		}
		evs := tl.Events()
		st, _ = runs.StateAfterEvent(evs[len(evs)-1])
	}
	return st, tl.Events()
}

func TestInvokeReadIsASuccessWithItsRun(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.start(t)
			rc, err := s.client.Invoke(context.Background(), s.read)
			if err != nil {
				t.Fatalf("a successful invocation read as a failure: %v", err)
			}
			if rc.RunID == "" {
				t.Fatalf("no run id detected in %+v", rc)
			}
			if s.sync {
				if rc.Status != capability.StatusCompleted || !rc.Synchronous() {
					t.Fatalf("synchronous answer read as %+v", rc)
				}
				v := capability.NewRegistry(nil).Render(capability.HintTable, rc.Result)
				if v.Renderer != capability.HintTable || v.Fallback != "" || v.Status != "ok" || len(v.Original) == 0 {
					t.Errorf("the envelope did not render as a table: %+v", v)
				}
			} else if rc.Status != capability.StatusRunning {
				t.Fatalf("status %q", rc.Status)
			}
			st, evs := followToEnd(t, s.client, rc.RunID)
			if st != runs.StateCompleted || !runs.TerminalEvent(evs[len(evs)-1]) {
				t.Errorf("the run ended %q after %d events", st, len(evs))
			}
			found := false
			for _, e := range evs {
				found = found || e.Type == runs.EventToolResult
			}
			if !found {
				t.Error("no tool_result event")
			}
		})
	}
}

// A pending approval is resumed with the document alone: re-submitting
// the exact proposal with its approval id, the backend's answer says
// whether it was granted.
func TestApprovalDiscoveredByResubmission(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.start(t)
			ctx := context.Background()
			rc, err := s.client.Invoke(ctx, s.approve)
			if err != nil || rc.Status != capability.StatusApprovalRequired || rc.ApprovalID == "" || rc.RunID == "" {
				t.Fatalf("first answer %+v %v", rc, err)
			}
			pending := capability.Pending{Proposal: s.approve, Receipt: rc}
			again, err := s.client.Invoke(ctx, pending.Resume())
			if got := capability.ResumeOutcome(again, err); got != capability.ApprovalPending {
				t.Fatalf("before the grant: %q (%+v, %v)", got, again, err)
			}
			s.grant(t, rc.ApprovalID)
			ran, err := s.client.Invoke(ctx, pending.Resume())
			if got := capability.ResumeOutcome(ran, err); got != capability.ApprovalGranted || ran.RunID != rc.RunID {
				t.Fatalf("after the grant: %q (%+v, %v)", got, ran, err)
			}
			if st, _ := followToEnd(t, s.client, ran.RunID); st != runs.StateCompleted {
				t.Errorf("the approved run ended %q", st)
			}
			// Spent: the same resume again is not run twice.
			if got := capability.ResumeOutcome(s.client.Invoke(ctx, pending.Resume())); got == capability.ApprovalGranted {
				t.Error("a spent approval ran again")
			}
		})
	}
}

func TestRunsNewestFirstFromEitherOrder(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.start(t)
			ctx := context.Background()
			var ids []runs.RunID
			for range 3 {
				rc, err := s.client.Invoke(ctx, s.read)
				if err != nil {
					t.Fatal(err)
				}
				followToEnd(t, s.client, rc.RunID)
				ids = append(ids, rc.RunID)
				time.Sleep(5 * time.Millisecond) // distinct start times
			}
			list, err := s.client.Runs(ctx, "")
			if err != nil || len(list) != 3 {
				t.Fatalf("%d runs, %v", len(list), err)
			}
			for i, r := range list {
				if r.ID != ids[2-i] || r.State != runs.StateCompleted {
					t.Errorf("runs[%d] = %s %s, want %s completed", i, r.ID, r.State, ids[2-i])
				}
			}
		})
	}
}

func TestStreamResetReasonAndGap(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.start(t)
			ctx := context.Background()
			rc, err := s.client.Invoke(ctx, s.read)
			if err != nil {
				t.Fatal(err)
			}
			followToEnd(t, s.client, rc.RunID)
			from, to := s.prune(t, rc.RunID)
			tl := runs.NewTimeline(0)
			res, err := runs.Follow(ctx, s.client, rc.RunID, tl, nil)
			if err != nil || res.Outcome != runs.OutcomeReset || !strings.Contains(res.Reason, s.resetReason) {
				t.Fatalf("follow from the start: %+v %v", res, err)
			}
			seen := tl.Last()
			tl.Reset()
			if _, err := runs.Replay(ctx, s.client, rc.RunID, tl, 2, nil); err != nil {
				t.Fatal(err)
			}
			f, tt, ok := tl.Missing(seen)
			if !ok || f != from || tt != to {
				t.Errorf("missing %d–%d (%v), want %d–%d", f, tt, ok, from, to)
			}
		})
	}
}

// The client calls only the routes the document names, and those a
// backend declared itself: an approvals list is never guessed.
func TestOnlyTheDocumentsRoutes(t *testing.T) {
	named := regexp.MustCompile(`^(GET /api/capabilities(/[^/]+)?|POST /api/capabilities/[^/]+/(preflight|invoke)|GET /api/runs(\?.*)?|GET /api/runs/[^/]+/events\?.*)$`)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.start(t)
			ctx := context.Background()
			l, err := s.client.Catalog(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, approvalsErr := s.client.Approvals(ctx)
			rc, err := s.client.Invoke(ctx, s.read)
			if err != nil {
				t.Fatal(err)
			}
			followToEnd(t, s.client, rc.RunID)
			s.client.Preflight(ctx, s.approve)
			s.client.Runs(ctx, "")
			declared := len(l.Capabilities) > 0 && approvalsErr == nil
			for _, p := range s.paths() {
				if named.MatchString(p) || declared && strings.Contains(p, "/api/approvals") {
					continue
				}
				t.Errorf("the client called %s", p)
			}
			if !declared && !httpapi.NoApprovalsList(approvalsErr) {
				t.Errorf("approvals of a backend that declares none: %v", approvalsErr)
			}
		})
	}
}
