package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/capability/httpapi/contracttest"
	"workbench/pkg/policy"
	"workbench/pkg/runs"
)

type setup struct {
	srv    *contracttest.Server
	client *httpapi.Client
	gov    *capability.Governor
}

// start serves a Governor over the simulator (world docs-and-git) and a
// never-connected MCP server through the conformance server.
func start(t *testing.T, engine *policy.Engine) *setup {
	t.Helper()
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
	gov := capability.NewGovernor(context.Background(), cat, capability.GovernorOptions{
		Engine: engine, NewID: func() string { return fmt.Sprintf("id-%04d", n.Add(1)) }})
	srv := contracttest.Start(t, capability.Local{Governor: gov})
	// net/http, not the default fetch: under js/wasm (Node.js) httptest
	// listens on Go's in-process network, which only net/http reaches.
	c, err := httpapi.New(srv.URL, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	// Read the catalog once, as the palette does before anything else:
	// the client learns the actions' names and the approvals surface the
	// backend declares from it.
	if _, err := c.Catalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &setup{srv: srv, client: c, gov: gov}
}

func count(reqs []contracttest.Request, r contracttest.Route) int {
	n := 0
	for _, q := range reqs {
		if q.Route == r {
			n++
		}
	}
	return n
}

func TestCatalogDescribePreflight(t *testing.T) {
	s := start(t, nil)
	ctx := context.Background()
	l, err := s.client.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Capabilities) != 10 || len(l.Failures) != 1 || l.Failures[0].Source != "mcp/gone" ||
		!strings.Contains(l.Failures[0].Error(), "not connected") {
		t.Fatalf("catalog: %d capabilities, failures %v", len(l.Capabilities), l.Failures)
	}
	c, err := s.client.Describe(ctx, "simulator:file_write")
	if err != nil || c.Effect != policy.EffectDestructive || len(c.InputSchema) == 0 {
		t.Fatalf("describe: %+v %v", c, err)
	}
	var ue *httpapi.UnavailableError
	if _, err := s.client.Describe(ctx, "simulator:nope"); !errors.As(err, &ue) || ue.Status != http.StatusNotFound {
		t.Errorf("describe of an unknown id: %v", err)
	}
	pv, err := s.client.Preflight(ctx, capability.Proposal{CapabilityID: "simulator:file_write",
		Input: json.RawMessage(`{"path":"a.txt","content":"x"}`), Target: "a.txt", Confirmed: true})
	if err != nil {
		t.Fatal(err)
	}
	if !pv.ApprovalRequired || !pv.NeedsConfirmation || !pv.NonAuthoritative || pv.SideEffect != policy.EffectDestructive {
		t.Errorf("preview %+v", pv)
	}
	// Preflight carried only action, inputs and target, and no request
	// carried an identity.
	for _, q := range s.srv.Requests() {
		if q.Header.Get("Authorization") != "" || q.Header.Get("Cookie") != "" {
			t.Errorf("%s %s sent an identity", q.Method, q.Path)
		}
		if q.Route == contracttest.RoutePreflight {
			var m map[string]any
			json.Unmarshal(q.Body, &m)
			for k := range m {
				if k != "action" && k != "inputs" && k != "target" {
					t.Errorf("preflight sent %q", k)
				}
			}
		}
	}
}

func TestInvokeAndFollowToTheEnd(t *testing.T) {
	s := start(t, nil)
	ctx := context.Background()
	rc, err := s.client.Invoke(ctx, capability.Proposal{CapabilityID: "simulator:file_list", Input: json.RawMessage(`{"path":"/tmp"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Status != capability.StatusRunning || rc.RunID == "" {
		t.Fatalf("receipt %+v", rc)
	}
	tl := runs.NewTimeline(0)
	var got []string
	res, err := runs.Follow(ctx, s.client, rc.RunID, tl, func(e runs.Event) { got = append(got, e.Type) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != runs.OutcomeEnded || strings.Join(got, " ") != "run_started policy_decision tool_call tool_result run_completed" {
		t.Errorf("followed %v: %+v", got, res)
	}
	list, err := s.client.Runs(ctx, "")
	if err != nil || len(list) != 1 || list[0].ID != rc.RunID || list[0].State != runs.StateCompleted || list[0].SessionID != rc.SessionID {
		t.Errorf("runs %+v %v", list, err)
	}
	if other, _ := s.client.Runs(ctx, "some-other-session"); len(other) != 0 {
		t.Errorf("session filter: %+v", other)
	}
	// The result renders through the registry from the tool_result event.
	var data json.RawMessage
	for _, e := range tl.Events() {
		if e.Type == runs.EventToolResult {
			data = e.Data
		}
	}
	if v := capability.NewRegistry(nil).Render(capability.HintJSON, data); v.Status != "ok" {
		t.Errorf("rendered %+v", v)
	}
}

// Refusals of the governed invoke. (Confirmation is not among them: the
// client asks for it before it submits, and the document names no member
// that would carry it.)
func TestRefusalsOverHTTP(t *testing.T) {
	tests := []struct {
		name   string
		engine *policy.Engine
		p      capability.Proposal
		code   string
	}{
		{"invalid", nil, capability.Proposal{CapabilityID: "simulator:file_read", Input: json.RawMessage(`{}`)}, capability.RefusedInvalid},
		{"denied", policy.Default(), capability.Proposal{CapabilityID: "simulator:file_delete", Input: json.RawMessage(`{"path":"a"}`), Confirmed: true}, capability.RefusedDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.engine)
			_, err := s.client.Invoke(context.Background(), tt.p)
			var re *capability.RefusedError
			if !errors.As(err, &re) || re.Code != tt.code || re.Reason == "" {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
			if tt.code == capability.RefusedInvalid && len(re.Problems) == 0 {
				t.Error("no problems with pointers")
			}
		})
	}
}

func TestApprovalAndExactResumeOverHTTP(t *testing.T) {
	s := start(t, nil)
	ctx := context.Background()
	p := capability.Proposal{CapabilityID: "simulator:file_write", Input: json.RawMessage(`{"path":"b.txt","content":"yes"}`),
		Target: "b.txt", Confirmed: true}
	rc, err := s.client.Invoke(ctx, p)
	if err != nil || rc.Status != capability.StatusApprovalRequired || rc.ApprovalID == "" {
		t.Fatalf("%+v %v", rc, err)
	}
	pend := capability.Pending{Proposal: p, Receipt: rc}

	// Follow the waiting run live while the approval is granted and the
	// action resumed.
	tl := runs.NewTimeline(0)
	done := make(chan runs.FollowResult, 1)
	go func() {
		res, err := runs.Follow(ctx, s.client, rc.RunID, tl, nil)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	aps, err := s.client.Approvals(ctx)
	if err != nil || len(aps) != 1 || aps[0].State != capability.ApprovalPending {
		t.Fatalf("approvals %+v %v", aps, err)
	}
	if _, err := s.client.Grant(ctx, rc.ApprovalID); err != nil {
		t.Fatal(err)
	}
	rc2, err := s.client.Invoke(ctx, pend.Resume())
	if err != nil || rc2.Status != capability.StatusRunning || rc2.RunID != rc.RunID {
		t.Fatalf("resume %+v %v", rc2, err)
	}
	select {
	case res := <-done:
		if res.Outcome != runs.OutcomeEnded {
			t.Errorf("follow %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follow did not end")
	}
	var invokes []httpapi.InvokeRequest
	for _, q := range s.srv.Requests() {
		if q.Route == contracttest.RouteInvoke {
			var ir httpapi.InvokeRequest
			json.Unmarshal(q.Body, &ir)
			invokes = append(invokes, ir)
		}
	}
	if len(invokes) != 2 || string(invokes[1].Inputs) != string(invokes[0].Inputs) || invokes[1].Target != invokes[0].Target ||
		invokes[1].ApprovalID != rc.ApprovalID || invokes[1].RunID != rc.RunID || invokes[1].SessionID != rc.SessionID {
		t.Errorf("the resume did not resubmit the exact proposal: %+v", invokes)
	}

	// An edited proposal is refused and discards a pending approval.
	rc3, err := s.client.Invoke(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	edited := capability.Pending{Proposal: p, Receipt: rc3}.Resume()
	edited.Input = json.RawMessage(`{"path":"b.txt","content":"no"}`)
	var re *capability.RefusedError
	if _, err := s.client.Invoke(ctx, edited); !errors.As(err, &re) || re.Code != capability.RefusedApprovalMismatch {
		t.Errorf("edited resume: %v", err)
	}
	if _, err := s.client.Grant(ctx, rc3.ApprovalID); err == nil {
		t.Error("a discarded approval was granted")
	}
}

func TestEachFailureOnItsOwn(t *testing.T) {
	type call func(*setup) error
	ctx := context.Background()
	calls := map[contracttest.Route]call{
		contracttest.RouteCatalog:  func(s *setup) error { _, err := s.client.Catalog(ctx); return err },
		contracttest.RouteDescribe: func(s *setup) error { _, err := s.client.Describe(ctx, "simulator:file_list"); return err },
		contracttest.RoutePreflight: func(s *setup) error {
			_, err := s.client.Preflight(ctx, capability.Proposal{CapabilityID: "simulator:file_list"})
			return err
		},
		contracttest.RouteInvoke: func(s *setup) error {
			_, err := s.client.Invoke(ctx, capability.Proposal{CapabilityID: "simulator:file_list"})
			return err
		},
		contracttest.RouteRuns:      func(s *setup) error { _, err := s.client.Runs(ctx, ""); return err },
		contracttest.RouteApprovals: func(s *setup) error { _, err := s.client.Approvals(ctx); return err },
		contracttest.RouteEvents: func(s *setup) error {
			_, err := runs.Replay(ctx, s.client, "run-x", runs.NewTimeline(0), 0, nil)
			return err
		},
		contracttest.RouteFollow: func(s *setup) error {
			_, err := runs.Follow(ctx, s.client, "run-x", runs.NewTimeline(0), nil)
			return err
		},
	}
	for route, do := range calls {
		for _, status := range []int{http.StatusUnauthorized, http.StatusNotFound, http.StatusInternalServerError, http.StatusServiceUnavailable} {
			t.Run(fmt.Sprintf("%s/%d", route, status), func(t *testing.T) {
				s := start(t, nil)
				s.srv.Fail(route, status)
				before := count(s.srv.Requests(), route)
				err := do(s)
				var ue *httpapi.UnavailableError
				var se *httpapi.StatusError
				switch {
				case status == http.StatusUnauthorized || status == http.StatusNotFound:
					if !errors.As(err, &ue) || ue.Status != status || ue.Unauthorized() != (status == http.StatusUnauthorized) {
						t.Fatalf("got %v, want an unavailable state %d", err, status)
					}
				default:
					if !errors.As(err, &se) || se.Status != status {
						t.Fatalf("got %v, want HTTP %d", err, status)
					}
				}
				if n := count(s.srv.Requests(), route) - before; n != 1 {
					t.Errorf("%s was asked %d times; a failure is not retried", route, n)
				}
				// The other routes still answer.
				for other, do := range calls {
					if other == route || other == contracttest.RouteEvents || other == contracttest.RouteFollow {
						continue
					}
					if err := do(s); err != nil {
						t.Errorf("%s broke with %s: %v", other, route, err)
					}
				}
			})
		}
	}
}

// finished invokes a read and waits for its run to end, for follow tests.
func finished(t *testing.T, s *setup) runs.RunID {
	t.Helper()
	rc, err := s.client.Invoke(context.Background(), capability.Proposal{CapabilityID: "simulator:file_list"})
	if err != nil {
		t.Fatal(err)
	}
	s.gov.Wait()
	return rc.RunID
}

func TestFollowFaults(t *testing.T) {
	ctx := context.Background()
	t.Run("duplicates", func(t *testing.T) {
		s := start(t, nil)
		run := finished(t, s)
		s.srv.Duplicate(true)
		tl := runs.NewTimeline(0)
		n := 0
		res, err := runs.Follow(ctx, s.client, run, tl, func(runs.Event) { n++ })
		if err != nil || res.Outcome != runs.OutcomeEnded || n != 5 || tl.Len() != 5 {
			t.Errorf("%+v %v: %d events, %d held", res, err, n, tl.Len())
		}
		tl = runs.NewTimeline(0)
		if _, err := runs.Replay(ctx, s.client, run, tl, 2, nil); err != nil || tl.Len() != 5 {
			t.Errorf("paged replay with duplicates: %d held, %v", tl.Len(), err)
		}
	})
	t.Run("dropped mid-follow", func(t *testing.T) {
		s := start(t, nil)
		run := finished(t, s)
		s.srv.DropNextFollow(2)
		tl := runs.NewTimeline(0)
		n := 0
		res, err := runs.Follow(ctx, s.client, run, tl, func(runs.Event) { n++ })
		if err != nil || res.Outcome != runs.OutcomeEnded || res.Resumed != 1 || n != 5 || s.srv.Follows() != 2 {
			t.Errorf("%+v %v: %d events, %d follows", res, err, n, s.srv.Follows())
		}
		// The second follow resumed after the last sequence it had.
		var follows []string
		for _, q := range s.srv.Requests() {
			if q.Route == contracttest.RouteFollow {
				follows = append(follows, q.Path)
			}
		}
		if len(follows) != 2 || !strings.HasSuffix(follows[1], "after=2") {
			t.Errorf("follows %v", follows)
		}
	})
	// A follow that ends cleanly before a terminal event, whole or inside
	// an event, as a host in between that cannot break a stream off
	// passes one on: the end is missing, so it is a dropped connection,
	// resumed after the last whole event; the half event is never
	// delivered.
	for _, half := range []bool{false, true} {
		t.Run(fmt.Sprintf("ended before a terminal event (inside an event: %v)", half), func(t *testing.T) {
			s := start(t, nil)
			run := finished(t, s)
			s.srv.EndNextFollow(2, half)
			st, err := s.client.Follow(ctx, run, 0)
			if err != nil {
				t.Fatal(err)
			}
			var seqs []int64
			for {
				e, err := st.Next(ctx)
				if err != nil {
					if !errors.Is(err, runs.ErrDropped) || !strings.Contains(err.Error(), "ended before a terminal event") {
						t.Errorf("after %v: %v; want an error wrapping runs.ErrDropped saying the terminal event is missing", seqs, err)
					}
					break
				}
				seqs = append(seqs, e.Sequence)
			}
			st.Close()
			if len(seqs) != 2 {
				t.Errorf("events %v before the end, want the 2 sent whole", seqs)
			}
			s.srv.EndNextFollow(2, half)
			tl := runs.NewTimeline(0)
			res, err := runs.Follow(ctx, s.client, run, tl, nil)
			if err != nil || res.Outcome != runs.OutcomeEnded || res.Resumed != 1 || tl.Len() != 5 {
				t.Errorf("%+v %v, %d held; want ended after one resume with 5 events", res, err, tl.Len())
			}
		})
	}
	t.Run("stream_reset", func(t *testing.T) {
		s := start(t, nil)
		run := finished(t, s)
		s.srv.ResetNextFollow(1)
		tl := runs.NewTimeline(0)
		res, err := runs.Follow(ctx, s.client, run, tl, nil)
		if err != nil || res.Outcome != runs.OutcomeReset || res.Reason == "" || tl.Len() != 1 || s.srv.Follows() != 1 {
			t.Fatalf("%+v %v, %d held", res, err, tl.Len())
		}
		// The operator replays the retained window.
		tl.Reset()
		st, err := runs.Replay(ctx, s.client, run, tl, 0, nil)
		if err != nil || st != runs.StateCompleted || tl.Len() != 5 {
			t.Errorf("replay of the window: %s %v, %d held", st, err, tl.Len())
		}
	})
	t.Run("follow of an unknown run", func(t *testing.T) {
		s := start(t, nil)
		_, err := runs.Follow(ctx, s.client, "no-such-run", runs.NewTimeline(0), nil)
		var ue *httpapi.UnavailableError
		if !errors.As(err, &ue) || ue.Status != http.StatusNotFound {
			t.Errorf("got %v", err)
		}
	})
}

func TestNewRefusesBadOrigins(t *testing.T) {
	for _, o := range []string{"", "ftp://x", "/relative", "http://"} {
		if _, err := httpapi.New(o, nil); err == nil {
			t.Errorf("New(%q) accepted", o)
		}
	}
}

// A backend that declares another execution route is listed all the
// same, with a note saying so, and executes only through the document's
// governed invoke route: the client sends nothing to the route it
// declared. A contract described in other words is read without a note.
func TestInvokeContractIsTheDocuments(t *testing.T) {
	for _, tt := range []struct {
		name, invoke, note string
	}{
		{"another route", `"invoke":{"method":"POST","route":"/api/tools/{name}"}`, "POST /api/tools/{name}"},
		{"another method", `"invoke":"GET /api/capabilities/:id/invoke"`, "GET /api/capabilities/:id/invoke"},
		{"other words", `"governed_invoke":{"method":"POST","path_template":"/api/capabilities/{capability_id}/invoke"}`, ""},
		{"none", `"other":1`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var paths []string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				paths = append(paths, r.Method+" "+r.URL.Path)
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/api/capabilities":
					fmt.Fprint(w, `{"capabilities":[{"id":"notes.search","name":"search","schema":{"type":"object"},"effect":"read"}],`+tt.invoke+`}`)
				default:
					w.WriteHeader(http.StatusAccepted)
					fmt.Fprint(w, `{"status":"running","run_id":"r1"}`)
				}
			}))
			defer ts.Close()
			c, err := httpapi.New(ts.URL, http.DefaultClient)
			if err != nil {
				t.Fatal(err)
			}
			l, err := c.Catalog(context.Background())
			if err != nil || len(l.Capabilities) != 1 {
				t.Fatalf("the catalog was not listed: %+v %v", l, err)
			}
			if note := strings.Join(l.Notes, "\n"); tt.note == "" && note != "" || tt.note != "" && (!strings.Contains(note, tt.note) || !strings.Contains(note, httpapi.InvokeRoute)) {
				t.Errorf("notes %q, want one naming %q", l.Notes, tt.note)
			}
			if _, err := c.Invoke(context.Background(), capability.Proposal{CapabilityID: "notes.search", Input: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
			if got := paths[len(paths)-1]; got != "POST /api/capabilities/notes.search/invoke" {
				t.Errorf("invoked through %s", got)
			}
		})
	}
}

// Requests carry the members the document names, and the action's own
// name; no approvals route is called unless the backend declared one.
func TestRequestsCarryTheDocumentsMembers(t *testing.T) {
	var bodies []map[string]json.RawMessage
	var paths []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.Method+" "+r.URL.Path)
		var b map[string]json.RawMessage
		json.NewDecoder(r.Body).Decode(&b)
		if b != nil {
			bodies = append(bodies, b)
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/capabilities":
			fmt.Fprint(w, `{"capabilities":[{"capability_id":"logs","actions":[{"action":"search","schema":{"type":"object"},"side_effect":"read"},`+
				`{"action":"purge","schema":{"type":"object"},"side_effect":"destructive"}]}]}`)
		case strings.HasSuffix(r.URL.Path, "/preflight"):
			fmt.Fprint(w, `{"decision":"allow"}`)
		default:
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, `{"status":"running","run_id":"r1"}`)
		}
	}))
	defer ts.Close()
	c, err := httpapi.New(ts.URL, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := c.Catalog(ctx)
	if err != nil || len(l.Capabilities) != 1 || len(l.Capabilities[0].Actions) != 2 {
		t.Fatalf("%+v %v", l, err)
	}
	p := capability.Proposal{CapabilityID: "logs", Action: "purge", Input: json.RawMessage(`{"days":3}`), Target: "t", Confirmed: true}
	pv, err := c.Preflight(ctx, p)
	if err != nil || pv.SideEffect != policy.EffectDestructive || !pv.NeedsConfirmation {
		t.Errorf("preview of purge: %+v %v", pv, err)
	}
	if _, err := c.Invoke(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Invoke(ctx, capability.Pending{Proposal: p, Receipt: capability.Receipt{ApprovalID: "a1", RunID: "r1", SessionID: "s1"}}.Resume()); err != nil {
		t.Fatal(err)
	}
	want := []string{"action inputs target", "action inputs target", "action approval_id inputs run_id session_id target"}
	for i, b := range bodies {
		var keys []string
		for k := range b {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if got := strings.Join(keys, " "); i >= len(want) || got != want[i] || string(b["action"]) != `"purge"` {
			t.Errorf("request %d carries %s, action %s", i, got, b["action"])
		}
	}
	if _, err := c.Approvals(ctx); !httpapi.NoApprovalsList(err) {
		t.Errorf("approvals without a declared list: %v", err)
	}
	if _, err := c.Grant(ctx, "a1"); !errors.Is(err, httpapi.ErrNoApprovalsList) {
		t.Errorf("grant without a declared route: %v", err)
	}
	if _, err := c.Invoke(ctx, capability.Proposal{CapabilityID: "logs", Action: "tail"}); err == nil || !strings.Contains(err.Error(), `no action "tail"`) {
		t.Errorf("an action the capability does not have: %v", err)
	}
	for _, p := range paths {
		if strings.Contains(p, "approvals") {
			t.Errorf("the client called %s, which the backend never declared", p)
		}
	}
}
