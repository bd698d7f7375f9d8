package e2e

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"workbench/fixtures"
	"workbench/internal/closedport"
	"workbench/pkg/services/servicestest"
	"workbench/pkg/skill"
)

// closedEndpoint is an MCP endpoint whose server is down: its port refuses
// every connection and is kept from any other server for as long as the
// test runs (internal/closedport). A port picked free and released could
// be taken meanwhile by another test's server, which then answered in its
// place (a run saw 404s from one).
func closedEndpoint(t *testing.T) string {
	t.Helper()
	return "http://" + closedport.Addr(t) + "/mcp"
}

// replayFidelity opens the replay page of the replay-fidelity skill with
// another repository as input: the same shapes with other text, a
// structural replay (TestReplayNewInput).
func (s *session) replayFidelity(t *testing.T) {
	t.Helper()
	id := s.importBundle(teachBundle(t, fixtures.ReplayFidelity, fidelitySteps...))
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-form")
	s.setValue("#replay-input-repo_url", "https://git.workbench.test/acme/gadget", "input")
}

// tickJudge ticks "Judge with PRISM" once the page has asked the relay
// whether prism-eval is configured.
func (s *session) tickJudge() {
	s.t.Helper()
	s.waitLong(present("#replay-judge-prism, #replay-judge-status"))
	if s.countOf("#replay-judge-prism") == 0 {
		s.t.Fatalf("no judge offered: %s", s.text("#replay-judge-status"))
	}
	s.click("#replay-judge-prism")
}

// axeClean reports the page's serious and critical axe-core violations.
func (s *session) axeClean(t *testing.T, name string) {
	t.Helper()
	for _, v := range s.axeRun(axeSource(t)) {
		t.Errorf("%s: %s", name, v)
	}
}

// runReplay runs the replay and waits for its outcome.
func (s *session) runReplay() {
	s.t.Helper()
	s.click("#replay-run")
	cond := `!!document.querySelector("#replay-outcome, #replay-error, #replay-auth-error") && !document.querySelector("#replay-run").disabled`
	if _, err := chromedp.Run(s.ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(90*time.Second))); err != nil {
		s.t.Fatalf("the replay did not end: %v\n%s", err, eval[string](s, `document.querySelector("main").innerText`))
	}
}

// With prism-eval configured, "Judge with PRISM" is offered; ticked, a
// structural replay the judge confirms equivalent becomes semantic, and
// the judged version carries the judge's answer. The server is the
// contract test server answering the equivalence request; the test checks
// what the workbench sent it.
func TestMCPJudgeSemantic(t *testing.T) {
	t.Parallel()
	prism := servicestest.Start(t, servicestest.Tool{Name: "observe", Schema: servicestest.ObserveSchema,
		Handler: func(args map[string]any) servicestest.Reply {
			return servicestest.Reply{Structured: map[string]any{"equivalent": true, "score": 0.93, "rationale": "both report the README", "judge_model": "e2e-judge"}}
		}})
	s := newSession(t, withServeFlags("--mcp", "prism="+prism.URL))
	s.replayFidelity(t)
	s.tickJudge()
	s.runReplay()
	if got := s.text("#replay-level"); got != skill.LevelSemantic {
		t.Errorf("level %q, want semantic", got)
	}
	if got := s.text("#replay-judge"); got == "" {
		t.Error("the judge's answer is not shown")
	}
	s.axeClean(t, "judged replay")
	calls := prism.Calls()
	if len(calls) != 1 || calls[0].Tool != "observe" || calls[0].Args["goal"] == "" || calls[0].Args["replay_output"] == nil {
		t.Errorf("prism-eval received %+v", calls)
	}
	s.click("#replay-save")
	s.waitVisible("#replay-saved")
	var judged bool
	for _, b := range s.judgedBundles() {
		judged = judged || b.Evidence.Judge != nil
	}
	if !judged {
		t.Error("no saved version carries evidence.judge")
	}
}

// prism-eval configured but unreachable: the judged replay is
// inconclusive, shown as such, with the reason.
func TestMCPJudgeUnavailable(t *testing.T) {
	t.Parallel()
	s := newSession(t, withServeFlags("--mcp", "prism="+closedEndpoint(t)))
	s.expectConsole("502") // the relay's answer for a server that is down
	s.expectConsole("Bad Gateway")
	s.replayFidelity(t)
	s.tickJudge()
	s.runReplay()
	if got := s.text("#replay-level"); got != skill.LevelInconclusive {
		t.Errorf("level %q, want inconclusive", got)
	}
	if got := s.text("#replay-judge"); !strings.Contains(got, "prism") {
		t.Errorf("judge line %q does not say why", got)
	}
}

// Without prism-eval the page says judging is not configured and offers
// no checkbox; the replay is measured as before.
func TestMCPJudgeNotConfigured(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.replayFidelity(t)
	s.waitText("#replay-judge-status", "prism-eval is not configured")
	if s.countOf("#replay-judge-prism") != 0 {
		t.Error("a judge is offered that is not configured")
	}
}

// With delegatic-mcp configured it decides every replayed action, the
// simulator's included, and the page names it; the server was asked
// under the skill's policy by the workbench user.
func TestMCPDelegaticAuthorizes(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	n := 0
	deleg := servicestest.Start(t, servicestest.Tool{Name: "authorize", Schema: servicestest.AuthorizeSchema,
		Handler: func(args map[string]any) servicestest.Reply {
			mu.Lock()
			n++
			token := "grant-" + strings.Repeat("x", n)
			mu.Unlock()
			now := time.Now().UTC()
			return servicestest.Reply{Structured: map[string]any{"status": "ok", "authorization_block": map[string]any{
				"policy_id": args["policy_id"], "approved_by": args["approved_by"],
				"approved_at": now.Format(time.RFC3339), "expires_at": now.Add(time.Hour).Format(time.RFC3339),
				"authorization_token": token}}}
		}})
	s := newSession(t, withServeFlags("--mcp", "delegatic="+deleg.URL))
	s.replayFidelity(t)
	s.runReplay()
	if got := s.text("#replay-authorizer"); got != "delegatic-mcp" {
		t.Errorf("authorizer %q, want delegatic-mcp", got)
	}
	calls := deleg.Calls()
	if len(calls) == 0 {
		t.Fatal("delegatic-mcp was not asked")
	}
	for _, c := range calls {
		if c.Args["policy_id"] != skill.DefaultPolicyID || c.Args["approved_by"] != "workbench-user" {
			t.Errorf("authorize %+v", c.Args)
		}
	}
}

// delegatic-mcp configured but down: the replay does not run until the
// tab accepts the local engine, which the page then names with why.
func TestMCPDelegaticUnreachable(t *testing.T) {
	t.Parallel()
	s := newSession(t, withServeFlags("--mcp", "delegatic="+closedEndpoint(t)))
	s.expectConsole("502")
	s.expectConsole("Bad Gateway")
	s.replayFidelity(t)
	s.runReplay()
	if s.countOf("#replay-auth-error") != 1 || s.countOf("#replay-outcome") != 0 {
		t.Fatal("the replay ran under another authority without a confirmation")
	}
	if got := s.text("#replay-auth-error-text"); !strings.Contains(got, "not reachable") {
		t.Errorf("authorizer error %q", got)
	}
	s.axeClean(t, "replay without an authorizer")
	s.click("#local-policy-accept")
	// The answer removes the refusal above the form, which moves the Run
	// button: click it where it is once the page has settled.
	s.waitJS(`!document.querySelector("#replay-auth-error")`)
	s.runReplay()
	if got := s.text("#replay-authorizer"); !strings.Contains(got, "local:"+skill.DefaultPolicyID) || !strings.Contains(got, "not reachable") {
		t.Errorf("authorizer %q: want the local engine and why", got)
	}
}

// The Memory tab with graphonomous-mcp configured: reading a trace it
// does not hold shows its refusal as it came; "Sync skill to memory"
// stores the bundle's trace; reading it then lists what was stored. The
// server keeps what it was sent and answers from it. Another tab and back
// keeps what the tab showed.
func TestMCPMemorySync(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	held := map[string]map[string]any{}
	graph := servicestest.Start(t,
		servicestest.Tool{Name: "act", Schema: servicestest.ActSchema, Handler: func(args map[string]any) servicestest.Reply {
			var tr map[string]any
			if err := json.Unmarshal([]byte(args["interaction_trace"].(string)), &tr); err != nil || args["action"] != "store_trace" {
				return servicestest.Reply{IsError: true, Structured: map[string]any{"status": "error", "error": "invalid_trace", "reason": "not a trace"}}
			}
			id, _ := tr["trace_id"].(string)
			mu.Lock()
			held[id] = tr
			mu.Unlock()
			edges, _ := tr["edges"].([]any)
			return servicestest.Reply{Structured: map[string]any{"status": "stored", "trace_id": id, "body_subtype": tr["body_subtype"],
				"edge_count": len(edges), "initial_state_hash": "sha256:00", "outcome": tr["outcome"], "destructive": false}}
		}},
		servicestest.Tool{Name: "retrieve", Schema: servicestest.RetrieveSchema, Handler: func(args map[string]any) servicestest.Reply {
			id, _ := args["trace_id"].(string)
			mu.Lock()
			tr, ok := held[id]
			mu.Unlock()
			if !ok {
				return servicestest.Reply{IsError: true, Structured: map[string]any{"status": "error", "error": "not_found", "reason": "no trace with trace_id=" + id}}
			}
			var edges []any
			for _, e := range tr["edges"].([]any) {
				e := e.(map[string]any)
				edges = append(edges, map[string]any{"edge_id": e["edge_id"], "state_before": e["state_before"], "state_after": e["state_after"],
					"typed_action": e["typed_action"], "latency_ms": e["latency_ms"], "outcome_status": e["outcome_status"]})
			}
			return servicestest.Reply{Structured: map[string]any{"status": "ok", "count": 1, "traces": []any{map[string]any{
				"trace_id": id, "body_subtype": tr["body_subtype"], "provider": tr["provider"], "agent_id": tr["agent_id"],
				"goal": tr["goal"], "outcome": tr["outcome"], "edge_count": len(edges), "initial_state_hash": "sha256:00",
				"started_at": tr["started_at"], "ended_at": tr["ended_at"],
				"replay_manifest": map[string]any{"destructive": false, "re_authorization_required": false, "note": nil, "edges": edges}}}}}
		}})
	front := countProbes(t, graph.URL)
	s := newSession(t, withServeFlags("--mcp", "graphonomous="+front.URL))
	id := s.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	s.openSkill(id)
	s.click("#tab-memory")
	s.waitVisible("#memory-retrieve")
	s.click("#memory-retrieve")
	got := s.waitText("#memory-read-error", "not_found")
	if !strings.Contains(got, "graphonomous-mcp") || !strings.Contains(got, "no trace with trace_id=") {
		t.Errorf("read error %q: want the service's refusal as it came", got)
	}
	s.click("#memory-sync")
	stored := s.waitText("#memory-stored", "stored trace")
	mu.Lock()
	n := len(held)
	var traceID string
	for k := range held {
		traceID = k
	}
	mu.Unlock()
	if n != 1 || !strings.Contains(stored, traceID) {
		t.Fatalf("the server holds %d traces; the page says %q", n, stored)
	}
	s.click("#memory-retrieve")
	nodes := s.waitText("#memory-nodes", traceID)
	if !strings.Contains(nodes, "browser_navigate") {
		t.Errorf("nodes %q lack the stored edge's action", nodes)
	}
	// The tab is a component the page keeps: another tab and back, and
	// what was stored and read is still shown.
	s.click("#tab-manifest")
	s.waitVisible("#panel-manifest")
	s.click("#tab-memory")
	if got := s.waitText("#memory-nodes", traceID); !strings.Contains(got, "browser_navigate") {
		t.Errorf("after another tab, nodes %q lack the stored edge's action", got)
	}
	if got := s.text("#memory-stored"); !strings.Contains(got, traceID) {
		t.Errorf("after another tab, the sync's answer is %q", got)
	}
	// Three connections from one page, each starting with the session
	// revision's handshake, which this server speaks: none probes.
	if n := front.probes.Load(); n != 0 {
		t.Errorf("graphonomous-mcp got %d server/discover probes from three connections on one page, want none", n)
	}
	s.axeClean(t, "memory tab with stored traces")
}

// judgedBundle is what the judge test reads of a stored bundle.
type judgedBundle struct {
	Evidence struct {
		Judge map[string]any `json:"judge"`
	} `json:"evidence"`
}

func (s *session) judgedBundles() []judgedBundle {
	s.t.Helper()
	var l struct {
		Bundles []judgedBundle `json:"bundles"`
	}
	if err := json.Unmarshal([]byte(eval[string](s, readLibrary)), &l); err != nil {
		s.t.Fatalf("reading the library: %v", err)
	}
	return l.Bundles
}
