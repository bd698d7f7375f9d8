package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/canonjson"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/schemas"
	"workbench/static"
)

func ptr(b bool) *bool { return &b }

var (
	readOnly    = body.Annotations{ReadOnlyHint: ptr(true)}
	plainWrite  = body.Annotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(false)}
	destructive = body.Annotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(true)}
	noHints     = body.Annotations{}
)

func TestEffectOf(t *testing.T) {
	cases := []struct {
		name    string
		a       body.Annotations
		trusted bool
		want    policy.Effect
	}{
		{"read-only hint", readOnly, true, policy.EffectRead},
		{"read-only wins over destructive", body.Annotations{ReadOnlyHint: ptr(true), DestructiveHint: ptr(true)}, true, policy.EffectRead},
		{"destructive hint", destructive, true, policy.EffectDestructive},
		{"destructive hint, read-only unsaid", body.Annotations{DestructiveHint: ptr(true)}, true, policy.EffectDestructive},
		{"not read-only, not destructive", plainWrite, true, policy.EffectWrite},
		{"read-only false only", body.Annotations{ReadOnlyHint: ptr(false)}, true, policy.EffectWrite},
		{"no hints at all", noHints, true, policy.EffectWrite},
		{"idempotent and open-world say nothing of effect", body.Annotations{IdempotentHint: ptr(true), OpenWorldHint: ptr(false)}, true, policy.EffectWrite},
		{"untrusted read-only", readOnly, false, policy.EffectUnknown},
		{"untrusted destructive", destructive, false, policy.EffectUnknown},
		{"untrusted no hints", noHints, false, policy.EffectUnknown},
	}
	for _, c := range cases {
		if got := policy.EffectOf(c.a, c.trusted); got != c.want {
			t.Errorf("%s: EffectOf = %s, want %s", c.name, got, c.want)
		}
	}
}

// fixedEngine returns the default engine with a stepping clock and
// numbered block ids.
func fixedEngine(t testing.TB) *policy.Engine {
	t.Helper()
	base := time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)
	n, m := 0, 0
	return policy.Default(
		policy.WithClock(func() time.Time { n++; return base.Add(time.Duration(n) * time.Millisecond) }),
		policy.WithIDs(func() string { m++; return fmt.Sprintf("00000000-0000-7000-8000-%012d", m) }),
	)
}

var both = []string{skill.CapabilityBrowser, skill.CapabilityOS}

// Every rule of workbench-default-v1, both destructive modes, trusted and
// untrusted annotations, undeclared and ambient capabilities.
func TestDefaultPolicyRules(t *testing.T) {
	type want struct {
		rule, decision, strength string
	}
	allowE := func(rule string) want { return want{rule, skill.DecisionAllow, policy.StrengthEnforced} }
	allowA := func(rule string) want { return want{rule, skill.DecisionAllow, policy.StrengthAdvisory} }
	deny := func(rule string) want { return want{rule, skill.DecisionDeny, policy.StrengthEnforced} }

	cases := []struct {
		name        string
		capability  string
		action      string
		a           body.Annotations
		trusted     bool
		declared    []string
		destructive bool
		want        want
	}{
		// ambient: always allowed, declared or not, whatever the effect.
		{"ambient undeclared", skill.CapabilityAmbient, "sim.observe", noHints, false, nil, false, allowE("ambient")},
		{"ambient declared write", skill.CapabilityAmbient, "sim.reset", plainWrite, true, []string{skill.CapabilityAmbient}, false, allowE("ambient")},

		// undeclared: denied before any effect is looked at, in both modes.
		{"undeclared browser read", skill.CapabilityBrowser, "browser.snapshot", readOnly, true, []string{skill.CapabilityOS}, false, deny("undeclared")},
		{"undeclared host read", skill.CapabilityOS, "os.file_read", readOnly, true, []string{skill.CapabilityBrowser}, false, deny("undeclared")},
		{"undeclared host write, destructive mode on", skill.CapabilityOS, "os.file_write", destructive, true, []string{skill.CapabilityBrowser}, true, deny("undeclared")},
		{"nothing declared", skill.CapabilityBrowser, "browser.click", plainWrite, true, nil, false, deny("undeclared")},

		// browser reads.
		{"browser read trusted", skill.CapabilityBrowser, "browser.snapshot", readOnly, true, both, false, allowE("browser-read")},
		{"browser read trusted, destructive mode on", skill.CapabilityBrowser, "browser.snapshot", readOnly, true, both, true, allowE("browser-read")},

		// browser writes: advisory, whatever the write.
		{"browser click", skill.CapabilityBrowser, "browser.click", plainWrite, true, both, false, allowA("browser-write")},
		{"browser fill, no hints", skill.CapabilityBrowser, "browser.fill", noHints, true, both, false, allowA("browser-write")},
		{"browser destructive", skill.CapabilityBrowser, "browser.navigate", destructive, true, both, false, allowA("browser-write")},
		{"browser destructive, destructive mode on", skill.CapabilityBrowser, "browser.click", destructive, true, both, true, allowA("browser-write")},
		{"browser read, untrusted server: unknown is a write", skill.CapabilityBrowser, "browser.snapshot", readOnly, false, both, false, allowA("browser-write")},

		// host reads.
		{"host read trusted", skill.CapabilityOS, "os.file_read", readOnly, true, both, false, allowE("host-read")},
		{"host read trusted, destructive mode on", skill.CapabilityOS, "os.shell_exec", readOnly, true, both, true, allowE("host-read")},

		// host writes: denied unless destructive mode is on.
		{"host file_write", skill.CapabilityOS, "os.file_write", plainWrite, true, both, false, deny("host-write")},
		{"host file_delete", skill.CapabilityOS, "os.file_delete", destructive, true, both, false, deny("host-write")},
		{"host shell write, no hints", skill.CapabilityOS, "os.shell_exec", noHints, true, both, false, deny("host-write")},
		{"host read from untrusted server is unknown, so a write", skill.CapabilityOS, "os.file_read", readOnly, false, both, false, deny("host-write")},
		{"host file_write, destructive mode on", skill.CapabilityOS, "os.file_write", plainWrite, true, both, true, allowE("host-write-destructive-mode")},
		{"host file_delete, destructive mode on", skill.CapabilityOS, "os.file_delete", destructive, true, both, true, allowE("host-write-destructive-mode")},
		{"host unknown, destructive mode on", skill.CapabilityOS, "os.shell_exec", readOnly, false, both, true, allowE("host-write-destructive-mode")},

		// no rule: default deny.
		{"declared but unruled capability", skill.CapabilityEpisodic, "memory.store", plainWrite, true, []string{skill.CapabilityEpisodic}, false, deny("")},
		{"declared but unruled capability, read", skill.CapabilityEpisodic, "memory.retrieve", readOnly, true, []string{skill.CapabilityEpisodic}, true, deny("")},
	}

	e := fixedEngine(t)
	hit := map[string]bool{}
	for _, c := range cases {
		req := policy.Request{
			Capability: c.capability, ActionType: c.action, Tool: strings.ReplaceAll(c.action, ".", "_"),
			Annotations: c.a, TrustedServer: c.trusted, Declared: c.declared,
			DestructiveMode: c.destructive, AgentID: "openrouter:example/model-a",
		}
		a, err := e.Authorize(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		pf := e.Preview(req)
		hit[pf.Rule] = true
		if pf.Rule != c.want.rule || a.Decision != c.want.decision || a.Strength != c.want.strength {
			t.Errorf("%s: rule %q, %s (%s); want rule %q, %s (%s)\nreason: %s",
				c.name, pf.Rule, a.Decision, a.Strength, c.want.rule, c.want.decision, c.want.strength, a.Reason)
		}
		wantPrefix := c.want.rule + ": "
		if c.want.rule == "" {
			wantPrefix = "default: "
		}
		if !strings.HasPrefix(a.Reason, wantPrefix) {
			t.Errorf("%s: reason %q does not name rule %q", c.name, a.Reason, wantPrefix)
		}
		if a.Capability != c.capability || a.ActionType != c.action {
			t.Errorf("%s: block says %s %s, want %s %s", c.name, a.Capability, a.ActionType, c.capability, c.action)
		}
		// The preview decides the same way, and grants nothing.
		p := pf.Authorization
		if p.Decision != a.Decision || p.Strength != a.Strength || p.Reason != a.Reason {
			t.Errorf("%s: preview %s/%s/%q differs from decision %s/%s/%q", c.name, p.Decision, p.Strength, p.Reason, a.Decision, a.Strength, a.Reason)
		}
		if !policy.IsPreview(p) || p.BlockID != "" || policy.IsPreview(a) {
			t.Errorf("%s: preview marking wrong: preview %+v, decision %+v", c.name, p, a)
		}
	}
	for _, r := range e.Policy().Rules {
		if !hit[r.ID] {
			t.Errorf("no case exercises rule %s", r.ID)
		}
	}
	if !hit[""] {
		t.Error("no case exercises the default deny")
	}
}

// A decision is a complete block: every member filled from the policy, the
// request, the injected clock and id source.
func TestAuthorizeBlock(t *testing.T) {
	e := fixedEngine(t)
	req := policy.Request{Capability: skill.CapabilityBrowser, ActionType: "browser.click", Tool: "browser_click",
		Annotations: plainWrite, TrustedServer: true, Declared: both}
	a, err := e.Authorize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := skill.Authorization{
		BlockID:    "00000000-0000-7000-8000-000000000001",
		PolicyID:   "workbench-default-v1",
		Decision:   "allow",
		Capability: "&body.browser",
		ActionType: "browser.click",
		Reason:     "browser-write: browser writes (form fills, clicks) are allowed at advisory strength",
		DecidedAt:  "2026-05-25T12:00:00.001Z",
		Authorizer: "local:workbench-default-v1",
		Strength:   "advisory",
	}
	if a != want {
		t.Errorf("block\n got %+v\nwant %+v", a, want)
	}
	b, _ := e.Authorize(context.Background(), req)
	if b.BlockID == a.BlockID || b.DecidedAt == a.DecidedAt {
		t.Errorf("second block reuses id or time: %+v", b)
	}

	// The block is what the bundle schema expects of an edge's authorization.
	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(schemas.Bundle, withAuthorization(t, a)); err != nil {
		t.Errorf("recorded block rejected by the bundle schema:\n%v", err)
	}
	// A preview is not a recorded decision: its empty block id fails.
	err = v.Validate(schemas.Bundle, withAuthorization(t, e.Preview(req).Authorization))
	var ve *schemas.ValidationError
	if !errors.As(err, &ve) || ve.Errors[0].Pointer != "/interaction_trace/edges/0/authorization/block_id" {
		t.Errorf("the bundle schema did not reject a preview block for its block id: %v", err)
	}
}

func TestDefaultIDsAndClock(t *testing.T) {
	e := policy.Default()
	before := time.Now().UTC()
	a, err := e.Authorize(context.Background(), policy.Request{Capability: skill.CapabilityAmbient, ActionType: "sim.observe"})
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339Nano, a.DecidedAt)
	if err != nil || at.Before(before.Truncate(time.Millisecond)) || time.Since(at) > time.Minute {
		t.Errorf("decided_at %q not now (%v)", a.DecidedAt, err)
	}
	if len(a.BlockID) != 36 || a.BlockID[14] != '7' {
		t.Errorf("block id %q is not a UUIDv7", a.BlockID)
	}
}

func TestAuthorizeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, err := policy.Default().Authorize(ctx, policy.Request{Capability: skill.CapabilityAmbient, ActionType: "sim.observe"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if a != (skill.Authorization{}) {
		t.Errorf("a cancelled request got a block: %+v", a)
	}
}

// The engine is an Authorizer, so a delegatic-mcp client can replace it.
var _ policy.Authorizer = (*policy.Engine)(nil)

func TestDefaultMatchesFile(t *testing.T) {
	loaded, err := policy.Load(policy.DefaultPolicyJSON())
	if err != nil {
		t.Fatalf("the bundled policy does not load:\n%v", err)
	}
	d := policy.Default()
	if !reflect.DeepEqual(loaded.Policy(), d.Policy()) {
		t.Errorf("Default and Load(DefaultPolicyJSON) differ:\n%+v\n%+v", d.Policy(), loaded.Policy())
	}
	if d.ID() != skill.DefaultPolicyID || d.Authorizer() != "local:"+skill.DefaultPolicyID {
		t.Errorf("default policy is %s by %s", d.ID(), d.Authorizer())
	}
	// Policy returns a copy.
	p := d.Policy()
	p.Rules[0].When.Capability[0] = "&body.os"
	*p.Rules[1].When.Declared = true
	if !reflect.DeepEqual(loaded.Policy(), d.Policy()) {
		t.Error("changing the returned policy changed the engine")
	}
}

func TestLoadCustomPolicy(t *testing.T) {
	src := `{
	  "schema": "https://opensentience.org/spec/workbench-policy/v0.1",
	  "policy_id": "ask-for-writes",
	  "rules": [
	    {"id": "reads", "when": {"effect": ["read"]}, "decision": "allow", "strength": "enforced", "reason": "reads are fine"},
	    {"id": "browser-any", "when": {"capability": ["&body.browser"]}, "decision": "allow", "strength": "advisory", "reason": "first match wins"},
	    {"id": "browser-never", "when": {"capability": ["&body.browser"]}, "decision": "deny", "strength": "enforced", "reason": "shadowed"},
	    {"id": "ask", "when": {"declared": true, "destructive_mode": false}, "decision": "approval_required", "strength": "enforced", "reason": "ask the user"}
	  ]
	}`
	e, err := policy.Load([]byte(src), policy.WithIDs(func() string { return "00000000-0000-7000-8000-000000000009" }))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		req      policy.Request
		decision string
		rule     string
	}{
		{policy.Request{Capability: skill.CapabilityOS, Annotations: readOnly, TrustedServer: true}, "allow", "reads"},
		{policy.Request{Capability: skill.CapabilityBrowser, Annotations: destructive, TrustedServer: true}, "allow", "browser-any"},
		{policy.Request{Capability: skill.CapabilityOS, Declared: both, Annotations: destructive, TrustedServer: true}, "approval_required", "ask"},
		{policy.Request{Capability: skill.CapabilityOS, Declared: both, DestructiveMode: true}, "deny", ""},
	}
	for i, c := range cases {
		a, err := e.Authorize(context.Background(), c.req)
		if err != nil {
			t.Fatal(err)
		}
		if rule := e.Preview(c.req).Rule; a.Decision != c.decision || rule != c.rule {
			t.Errorf("case %d: %s by %q, want %s by %q", i, a.Decision, rule, c.decision, c.rule)
		}
		if a.PolicyID != "ask-for-writes" || a.Authorizer != "local:ask-for-writes" {
			t.Errorf("case %d: block names %s / %s", i, a.PolicyID, a.Authorizer)
		}
	}
}

func TestLoadRejects(t *testing.T) {
	const head = `"schema": "https://opensentience.org/spec/workbench-policy/v0.1", "policy_id": "p"`
	rule := func(s string) string {
		return `{` + head + `, "rules": [` + s + `]}`
	}
	ok := `{"id": "r", "when": {}, "decision": "allow", "strength": "enforced", "reason": "x"}`
	cases := []struct {
		name string
		src  string
		// Either the strict parser rejects the text at this pointer…
		parsePointer string
		// …or schema and rule checks reject these places.
		want []string
	}{
		{name: "not JSON", src: `{` + head + `, "rules": [}`, parsePointer: "/rules/0"},
		{name: "duplicate member", src: `{` + head + `, "policy_id": "q", "rules": []}`, parsePointer: "/policy_id"},
		{name: "not an object", src: `[]`, want: []string{"(document) [type]"}},
		{name: "no rules", src: `{` + head + `}`, want: []string{"/rules [required]"}},
		{name: "empty rules", src: rule(``), want: []string{"/rules [minItems]"}},
		{name: "wrong schema", src: strings.Replace(rule(ok), "workbench-policy", "other-policy", 1), want: []string{"/schema [const]"}},
		{name: "bad policy id", src: strings.Replace(rule(ok), `"policy_id": "p"`, `"policy_id": "Default Policy"`, 1), want: []string{"/policy_id [pattern]"}},
		{name: "unknown top-level member", src: `{` + head + `, "default": "allow", "rules": [` + ok + `]}`, want: []string{"/default [additionalProperties]"}},
		{name: "rule missing members", src: rule(`{"id": "r", "when": {}}`), want: []string{"/rules/0/decision [required]", "/rules/0/reason [required]", "/rules/0/strength [required]"}},
		{name: "unknown effect", src: rule(`{"id": "r", "when": {"effect": ["read", "delete"]}, "decision": "allow", "strength": "enforced", "reason": "x"}`), want: []string{"/rules/0/when/effect/1 [enum]"}},
		{name: "unknown condition", src: rule(`{"id": "r", "when": {"tool": ["shell"]}, "decision": "deny", "strength": "enforced", "reason": "x"}`), want: []string{"/rules/0/when/tool [additionalProperties]"}},
		{name: "bad capability", src: rule(`{"id": "r", "when": {"capability": ["body.os"]}, "decision": "deny", "strength": "enforced", "reason": "x"}`), want: []string{"/rules/0/when/capability/0 [pattern]"}},
		{name: "empty capability list", src: rule(`{"id": "r", "when": {"capability": []}, "decision": "deny", "strength": "enforced", "reason": "x"}`), want: []string{"/rules/0/when/capability [minItems]"}},
		{name: "declared not boolean", src: rule(`{"id": "r", "when": {"declared": "no"}, "decision": "deny", "strength": "enforced", "reason": "x"}`), want: []string{"/rules/0/when/declared [type]"}},
		{name: "bad decision and strength", src: rule(`{"id": "r", "when": {}, "decision": "maybe", "strength": "strong", "reason": "x"}`), want: []string{"/rules/0/decision [enum]", "/rules/0/strength [enum]"}},
		{name: "empty reason", src: rule(`{"id": "r", "when": {}, "decision": "deny", "strength": "enforced", "reason": ""}`), want: []string{"/rules/0/reason [minLength]"}},
		{name: "repeated rule id", src: rule(ok + `,` + strings.Replace(ok, `"r"`, `"s"`, 1) + `,` + ok), want: []string{"/rules/2/id [unique]"}},
	}
	for _, c := range cases {
		_, err := policy.Load([]byte(c.src))
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "policy: ") {
			t.Errorf("%s: error does not say it is about a policy: %v", c.name, err)
		}
		if c.parsePointer != "" {
			var ce *canonjson.Error
			if !errors.As(err, &ce) || ce.Pointer != c.parsePointer {
				t.Errorf("%s: want a parse error at %s, got %v", c.name, c.parsePointer, err)
			}
			continue
		}
		var ve *schemas.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: want a validation error, got %v", c.name, err)
			continue
		}
		var got []string
		for _, f := range ve.Errors {
			p := f.Pointer
			if p == "" {
				p = "(document)"
			}
			got = append(got, p+" ["+f.Keyword+"]")
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: errors %v, want %v\n%v", c.name, got, c.want, err)
		}
	}
}

func generic(t testing.TB, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// withAuthorization returns the reference bundle fixture with its first
// edge's authorization replaced by a, as the generic value the validator
// takes.
func withAuthorization(t testing.TB, a skill.Authorization) any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	g := doc.Generic()
	edges := g.(map[string]any)["interaction_trace"].(map[string]any)["edges"].([]any)
	edges[0].(map[string]any)["authorization"] = generic(t, a)
	return g
}

func BenchmarkAuthorize(b *testing.B) {
	e := policy.Default(policy.WithIDs(func() string { return "00000000-0000-7000-8000-000000000001" }))
	req := policy.Request{Capability: skill.CapabilityOS, ActionType: "os.file_write", Annotations: plainWrite,
		TrustedServer: true, Declared: both}
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Authorize(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// Every capability the bundled policy rules on, ambient aside, is one the
// workbench declares it consumes (static/workbench.ampersand.json).
func TestDefaultPolicyCapabilitiesDeclared(t *testing.T) {
	var decl struct {
		Capabilities struct {
			Consumes []string `json:"consumes"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(static.Ampersand(), &decl); err != nil {
		t.Fatal(err)
	}
	for i, r := range policy.Default().Policy().Rules {
		for _, c := range r.When.Capability {
			if c != skill.CapabilityAmbient && !slices.Contains(decl.Capabilities.Consumes, c) {
				t.Errorf("rule %d (%s) rules on %s, which the workbench does not declare", i, r.ID, c)
			}
		}
	}
}
