package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"workbench/pkg/capability"
	"workbench/pkg/policy"
	"workbench/pkg/runs"
)

func TestDecodeCapabilityVariants(t *testing.T) {
	tests := []struct {
		name, entry string
		avail       capability.Availability
		effect      policy.Effect
		reason      string // a word one of the reasons holds
		err         string // the entry is unusable, for this reason
	}{
		{"published", `{"capability_id":"a:b","title":"B","input_schema":{"type":"object"},"side_effect":"read","availability":"available"}`,
			capability.Available, policy.EffectRead, "", ""},
		{"availability object", `{"id":"x","schema":{},"effect":"mutating","availability":{"state":"degraded","reasons":["slow"]}}`,
			capability.Degraded, policy.EffectWrite, "slow", ""},
		{"availability object with missing", `{"id":"x","availability":{"status":"unavailable","missing":[{"name":"a token"}]}}`,
			capability.Unavailable, policy.EffectUnknown, "", ""},
		{"availability boolean", `{"id":"x","available":false,"reason":"down for upgrade","side_effects":["read","destructive"]}`,
			capability.Unavailable, policy.EffectDestructive, "upgrade", ""},
		{"availability unknown word", `{"id":"x","availability":"sideways","effect":{"kind":"read_only"}}`,
			capability.Unavailable, policy.EffectRead, "sideways", ""},
		{"no availability, flag effect", `{"id":"x","read_only":true}`, capability.Available, policy.EffectRead, "", ""},
		{"unknown effect word", `{"id":"x","effect":"spicy"}`, capability.Available, policy.EffectUnknown, "", ""},
		{"display only", `{"id":"x","display_only":true,"effect":"read"}`, capability.Unavailable, policy.EffectRead, "display-only", ""},
		{"one action", `{"id":"x","actions":[{"name":"run","parameters":{"type":"object"},"side_effect":"write"}]}`,
			capability.Available, policy.EffectWrite, "", ""},
		{"boolean schema", `{"id":"x","input_schema":true}`, capability.Available, policy.EffectUnknown, "", ""},
		{"prose schema", `{"id":"x","schema":"a query string"}`, "", "", "", "not a JSON Schema"},
		{"no id", `{"title":"x"}`, "", "", "", "no capability_id"},
		{"two actions", `{"id":"x","actions":[{"action":"a","effect":"read"},{"name":"b","side_effect":"destructive"}]}`,
			capability.Available, policy.EffectRead, "", ""},
		{"an action without a name", `{"id":"x","actions":[{"action":"a"},{"schema":{}}]}`, "", "", "", "actions[1] has no name"},
		{"an action twice", `{"id":"x","actions":[{"action":"a"},{"action":"a"}]}`, "", "", "", `the action "a" is listed twice`},
		{"an action with a prose schema", `{"id":"x","actions":[{"action":"a","input_schema":"text"}]}`, "", "", "", "actions[0]: input_schema is not a JSON Schema"},
		{"actions not a list", `{"id":"x","actions":{"a":{}}}`, "", "", "", "actions is not an array"},
		{"not an object", `["x"]`, "", "", "", "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := DecodeCapability(json.RawMessage(tt.entry), nil, "entry")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error about %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Availability != tt.avail || c.Effect != tt.effect {
				t.Errorf("availability %s, effect %s; want %s, %s", c.Availability, c.Effect, tt.avail, tt.effect)
			}
			if tt.reason != "" && !strings.Contains(strings.Join(c.Reasons, "|"), tt.reason) {
				t.Errorf("reasons %q lack %q", c.Reasons, tt.reason)
			}
			if !json.Valid(c.InputSchema) || c.Title == "" || c.Source == "" || c.Name == "" {
				t.Errorf("decoded %+v", c)
			}
		})
	}
}

// The invoke contract is read under any names; one that contradicts the
// document is a note beside a catalog that is listed all the same.
func TestDecodeCatalogInvokeContract(t *testing.T) {
	tests := []struct {
		invoke      string
		contradicts bool
	}{
		{`"invoke":{"method":"POST","route":"/api/capabilities/{capability_id}/invoke"}`, false},
		{`"invoke":{"method":"post","path":"/api/capabilities/{id}/invoke/"}`, false},
		{`"invoke_contract":"POST /api/capabilities/:capability_id/invoke"`, false},
		{`"invoke":"/api/capabilities/{capability_id}/invoke"`, false},
		{`"governed_invoke":{"method":"POST","path_template":"/api/capabilities/{capability_id}/invoke"}`, false},
		{`"governed_invoke":{"http_method":"POST","url_template":"/api/capabilities/{capabilityId}/invoke"}`, false},
		{`"invoke":{"description":"the governed boundary"}`, false}, // unreadable: noted for the check only
		{`"other":1`, false}, // none declared: the document's route
		{`"invoke":{"method":"POST","route":"/api/tools/{name}"}`, true},
		{`"invoke":{"method":"GET","route":"/api/capabilities/{capability_id}/invoke"}`, true},
	}
	for _, tt := range tests {
		var n Notes
		l, err := DecodeCatalog([]byte(`{"capabilities":[{"id":"a"}],`+tt.invoke+`}`), &n)
		if err != nil || len(l.Capabilities) != 1 || (len(l.Notes) > 0) != tt.contradicts {
			t.Errorf("%s: %d listed, notes %q, %v", tt.invoke, len(l.Capabilities), l.Notes, err)
		}
	}
	var n Notes
	l, err := DecodeCatalog([]byte(`[{"id":"a"},{"id":"a"},{"id":"b","schema":7}]`), &n)
	if err != nil || len(l.Capabilities) != 1 || len(l.Unusable) != 2 || l.Unusable[0].Index != 1 || l.Unusable[1].ID != "b" {
		t.Errorf("bare array with a duplicate and a bad schema: %+v %v", l, err)
	}
	if len(n.List()) == 0 || !strings.Contains(strings.Join(n.List(), "\n"), "bare array") {
		t.Errorf("notes %q", n.List())
	}
}

func TestDecodeReceiptShapes(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		want     string
		run, apr string
		err      string
	}{
		{"published running", 202, `{"status":"running","run_id":"r1","session_id":"s"}`, capability.StatusRunning, "r1", "", ""},
		{"accepted runId", 202, `{"status":"accepted","runId":"r2"}`, capability.StatusRunning, "r2", "", ""},
		{"nested approval", 202, `{"status":"pending_approval","approval":{"id":"a1"},"run":{"id":"r3"}}`, capability.StatusApprovalRequired, "r3", "a1", ""},
		{"sync envelope", 200, `{"status":"ok","result":{"rows":[]},"run_id":"r4"}`, capability.StatusCompleted, "r4", "", ""},
		{"sync envelope, run id inside", 200, `{"status":"success","result":{"run_id":"r5"}}`, capability.StatusCompleted, "r5", "", ""},
		{"sync failure", 200, `{"status":"error","result":{"message":"boom"}}`, capability.StatusFailed, "", "", ""},
		{"sync bare value", 200, `[1,2]`, capability.StatusCompleted, "", "", ""},
		{"running without a run", 202, `{"status":"running"}`, "", "", "", "binds no run_id"},
		{"approval without an id", 202, `{"status":"approval_required","run_id":"r"}`, "", "", "", "names no approval_id"},
		{"202 of another status", 202, `{"status":"done"}`, "", "", "", "neither running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := DecodeReceipt(tt.status, []byte(tt.body), nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %+v %v, want an error about %q", rc, err, tt.err)
				}
				return
			}
			if err != nil || rc.Status != tt.want || string(rc.RunID) != tt.run || rc.ApprovalID != tt.apr {
				t.Fatalf("got %+v %v", rc, err)
			}
			if rc.Synchronous() && string(rc.Result) != tt.body {
				t.Errorf("result %s, want the original answer", rc.Result)
			}
		})
	}
}

func TestDecodeErrorShapes(t *testing.T) {
	for body, want := range map[string]ErrorDetail{
		`{"error":{"code":"denied","message":"no","problems":["/a: x"]}}`: {Code: "denied", Message: "no", Problems: []string{"/a: x"}},
		`{"error":"no","code":"denied"}`:                                  {Code: "denied", Message: "no"},
		`{"code":"invalid","message":"bad","issues":["q"]}`:               {Code: "invalid", Message: "bad", Problems: []string{"q"}},
		`{"detail":"nope"}`:                                               {Message: "nope"},
		`plain words`:                                                     {Message: "plain words"},
		`<html>oops</html>`:                                               {},
	} {
		got := DecodeError([]byte(body))
		if got.Code != want.Code || got.Message != want.Message || strings.Join(got.Problems, ",") != strings.Join(want.Problems, ",") {
			t.Errorf("%s: %+v, want %+v", body, got, want)
		}
	}
}

func TestDecodePageAndEvents(t *testing.T) {
	p, err := DecodePage([]byte(`{"items":[{"id":"e1","seq":4,"event":"progress","ts":"t","payload":{"a":1}}],"has_more":true,"next_cursor":4,"status":"in_progress"}`), "r", nil)
	if err != nil || len(p.Events) != 1 || p.Events[0].Sequence != 4 || p.Events[0].Type != "progress" || string(p.Events[0].Data) != `{"a":1}` ||
		p.Events[0].RunID != "r" || !p.More || p.Next != 4 || p.State != runs.StateRunning {
		t.Errorf("page %+v %v", p, err)
	}
	// No more member: more while events come.
	p, _ = DecodePage([]byte(`{"events":[{"event_id":"e","sequence":1,"type":"x"}]}`), "r", nil)
	if !p.More {
		t.Error("a page with events and no more member ends the replay")
	}
	p, _ = DecodePage([]byte(`{"events":[]}`), "r", nil)
	if p.More {
		t.Error("an empty page says more")
	}
	if _, err := DecodePage([]byte(`{"events":[{"id":"e","type":"x"}]}`), "r", nil); err == nil || !strings.Contains(err.Error(), "no sequence") {
		t.Errorf("an event without a sequence: %v", err)
	}
	if _, err := DecodePage([]byte(`{"events":[{"id":"e","seq":1,"run_id":"other"}]}`), "r", nil); err == nil {
		t.Error("an event of another run was accepted")
	}
	e, err := DecodeEvent(json.RawMessage(`{"event":"run.succeeded"}`), "r", "7", nil, "sse")
	if err != nil || e.Sequence != 7 || e.ID == "" || !runs.TerminalEvent(e) {
		t.Errorf("SSE event with its sequence in the SSE id: %+v %v", e, err)
	}
}

func TestDecodeRunsSortsAndReadsVariants(t *testing.T) {
	list, err := DecodeRuns([]byte(`{"data":[
		{"id":"old","status":"succeeded","created_at":"2026-01-01T00:00:00Z"},
		{"run_id":"new","state":"running","started_at":"2026-01-03T00:00:00Z"},
		{"id":"mid","status":"canceled","created_at":"1767312000"},
		{"status":"failed"}]}`), nil)
	if err != nil || len(list) != 3 {
		t.Fatalf("%+v %v", list, err)
	}
	want := []struct {
		id string
		st runs.State
	}{{"new", runs.StateRunning}, {"mid", runs.StateCancelled}, {"old", runs.StateCompleted}}
	for i, w := range want {
		if string(list[i].ID) != w.id || list[i].State != w.st {
			t.Errorf("runs[%d] = %s %s, want %s %s", i, list[i].ID, list[i].State, w.id, w.st)
		}
	}
}

// Several actions: each with its own schema, side effect and render hint,
// the entry's where an action declares none.
func TestDecodeActions(t *testing.T) {
	c, err := DecodeCapability(json.RawMessage(`{"actions":[
		{"action":"search","render_hint":"table","side_effect":"read","input_schema":{"type":"object","required":["q"]}},
		{"action":"purge","effect":"destructive","description":"Delete old ones."},
		{"action":"tail"}],
		"render":{"hint":"json"},"effect":"read_only","title":"Logs","capability_id":"logs"}`), nil, "entry")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "logs" || c.Title != "Logs" || c.Name != "search" || c.RenderHint != "table" || len(c.Actions) != 3 {
		t.Fatalf("%+v", c)
	}
	want := []struct {
		name   string
		effect policy.Effect
		hint   string
	}{{"search", policy.EffectRead, "table"}, {"purge", policy.EffectDestructive, "json"}, {"tail", policy.EffectRead, "json"}}
	for i, w := range want {
		a := c.Actions[i]
		if a.Name != w.name || a.Effect != w.effect || a.RenderHint != w.hint || !json.Valid(a.InputSchema) {
			t.Errorf("actions[%d] = %+v, want %+v", i, a, w)
		}
	}
	if p, _ := c.Act("purge"); p.Description != "Delete old ones." || p.Effect != policy.EffectDestructive {
		t.Errorf("purge: %+v", p)
	}
	// An entry without actions is its own action, named by its name, else
	// by its id.
	for entry, name := range map[string]string{`{"id":"notes.search"}`: "notes.search", `{"capability_id":"a:b","name":"b"}`: "b"} {
		if c, err := DecodeCapability(json.RawMessage(entry), nil, "entry"); err != nil || c.Name != name || len(c.Actions) != 0 {
			t.Errorf("%s: name %q, %d actions, %v", entry, c.Name, len(c.Actions), err)
		}
	}
}

// An approvals surface is the backend's to declare: nothing is guessed.
func TestDecodeApprovalRoutes(t *testing.T) {
	tests := []struct {
		body string
		want ApprovalRoutes
		ok   bool
	}{
		{`{"approvals":{"list":"GET /api/approvals","grant":"POST /api/approvals/{approval_id}/grant","deny":"POST /api/approvals/{approval_id}/deny"}}`,
			ApprovalRoutes{"/api/approvals", "/api/approvals/{approval_id}/grant", "/api/approvals/{approval_id}/deny"}, true},
		{`{"approvals":"/ops/approvals"}`, ApprovalRoutes{List: "/ops/approvals"}, true},
		{`{"links":{"approvals":{"href":"/ops/approvals","grant":"/ops/approvals/:id/grant"}}}`,
			ApprovalRoutes{List: "/ops/approvals", Grant: "/ops/approvals/{approval_id}/grant"}, true},
		{`{"approvals":"POST /api/approvals"}`, ApprovalRoutes{}, false},      // not a list's method
		{`{"approvals":"https://elsewhere.test/a"}`, ApprovalRoutes{}, false}, // not a route of this origin
		{`{"approvals":[{"id":"a1"}]}`, ApprovalRoutes{}, false},              // approvals, not a route
		{`{"capabilities":[]}`, ApprovalRoutes{}, false},
	}
	for _, tt := range tests {
		got, ok := DecodeApprovalRoutes([]byte(tt.body))
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: %+v %v, want %+v %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
}
