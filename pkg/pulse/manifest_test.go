package pulse_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"workbench/pkg/canonjson"
	"workbench/pkg/pulse"
	"workbench/pkg/skill"
	"workbench/static"
)

// What PULSE's loop-manifest schema v0.1 (public repository c-u-l8er/PULSE,
// schemas/pulse-loop-manifest.v0.1.json, JSON Schema 2020-12, $id
// https://opensentience.org/schemas/pulse-loop-manifest.v0.1.json) requires,
// read from that file and written down here, because the project does not
// vendor other projects' files:
//
//   - The manifest is an object with no members but $schema (a URI),
//     pulse_protocol_version, loop_id, loop_name, version, owner,
//     workspace_scope, description, phases, closure, cadence, nesting,
//     substrates, invariants, connections and telemetry. Required:
//     pulse_protocol_version, loop_id, version, phases, closure, cadence,
//     substrates, invariants.
//   - pulse_protocol_version matches ^0\.1(\.[0-9]+)?$; loop_id matches
//     ^[a-z0-9_]+(\.[a-z0-9_]+)+$ (dot notation, no hyphens); version is
//     SemVer ^[0-9]+\.[0-9]+\.[0-9]+$; workspace_scope is required,
//     optional or global; loop_name, owner and description are strings.
//   - phases is an array of at least 2 phase objects. A phase requires id
//     (^[a-z0-9_]+$) and kind (retrieve, route, act, learn, consolidate or
//     custom; custom requires custom_kind) and allows only custom_kind,
//     description, inputs {from, schema}, outputs {to, schema} (objects,
//     open, their named members strings), idempotent, signature, timeout_ms
//     (integer >= 0), on_failure (retry, rollback, escalate, skip,
//     abort_loop), max_retries (integer >= 0), policy_check, audit_event,
//     invariant and parallel (boolean).
//   - closure is {from_phase, to_phase} (required, strings), with optional
//     via (string) and guarantee (immediate, next_tick or eventual), nothing
//     else.
//   - cadence is an object requiring type (event, periodic, streaming, idle,
//     cross_loop_signal or manual), allowing params (object) and fallback
//     (a cadence), nothing else.
//   - nesting allows parent_loop (string or null) and inner_loops: objects
//     requiring loop_id and trigger, allowing wait (until_stable,
//     until_done, fire_forget, bounded) and timeout_ms (integer >= 0).
//   - substrates is an object requiring memory, policy, audit and auth,
//     allowing transport and time, each a string or null, nothing else.
//   - invariants is an object of booleans named phase_atomicity,
//     feedback_immutability, append_only_audit, kappa_routing,
//     quorum_before_commit, outcome_grounding, trace_id_propagation, and
//     nothing else.
//   - connections are objects requiring id, emit_phase, token and to_loop,
//     allowing emit_condition, envelope (cloudevents.v1), to_phase, cadence
//     (sync, async), delivery (at_least_once, at_most_once, exactly_once),
//     max_inflight (integer >= 1) and overflow_policy (block, drop_oldest,
//     drop_newest, escalate); token is one of the six canonical tokens.
//   - telemetry allows namespace (string), phase_metrics and loop_metrics
//     (arrays of strings), nothing else.
//
// OS-010 §3.2 adds, in prose: a loop has at least one retrieve and one act
// phase, and its closure routes a learn or consolidate outcome back to a
// retrieve.
//
// Where the spec's §9 example disagrees, PULSE's schema wins: loop_id
// workbench.skill-workshop has a hyphen (now workbench.skill_workshop); the
// example's purpose, cross_loop_signals and substrate_dependencies members,
// each phase's substrate and cadence, outputs as an array and invariants as
// a list of sentences are not allowed; pulse_protocol_version, closure,
// cadence.type and an object substrates are required.

type manifestChecker struct{ problems []string }

func (c *manifestChecker) fail(ptr, format string, args ...any) {
	if ptr == "" {
		ptr = "(document)"
	}
	c.problems = append(c.problems, ptr+": "+fmt.Sprintf(format, args...))
}

// object checks that v is an object with every required member and no
// member outside allowed (nil allowed: open).
func (c *manifestChecker) object(ptr string, v any, required, allowed []string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(ptr, "must be an object, not %T", v)
		return nil, false
	}
	for _, r := range required {
		if _, ok := m[r]; !ok {
			c.fail(ptr+"/"+r, "is required")
		}
	}
	if allowed != nil {
		for k := range m {
			if !slices.Contains(allowed, k) && !slices.Contains(required, k) {
				c.fail(ptr+"/"+k, "is not an allowed member")
			}
		}
	}
	return m, true
}

// str checks an optional string member against a pattern or an enum.
func (c *manifestChecker) str(m map[string]any, ptr, name string, pattern string, enum ...string) {
	v, ok := m[name]
	if !ok {
		return
	}
	s, isStr := v.(string)
	switch {
	case !isStr:
		c.fail(ptr+"/"+name, "must be a string, not %T", v)
	case pattern != "" && !regexp.MustCompile(pattern).MatchString(s):
		c.fail(ptr+"/"+name, "%q must match %s", s, pattern)
	case len(enum) > 0 && !slices.Contains(enum, s):
		c.fail(ptr+"/"+name, "%q must be one of %v", s, enum)
	}
}

func (c *manifestChecker) strOrNull(m map[string]any, ptr, name string) {
	if v, ok := m[name]; ok && v != nil {
		c.str(m, ptr, name, "")
	}
}

func (c *manifestChecker) boolean(m map[string]any, ptr, name string) {
	if v, ok := m[name]; ok {
		if _, ok := v.(bool); !ok {
			c.fail(ptr+"/"+name, "must be a boolean, not %T", v)
		}
	}
}

func (c *manifestChecker) integer(m map[string]any, ptr, name string, min float64) {
	v, ok := m[name]
	if !ok {
		return
	}
	f, isNum := v.(float64)
	if !isNum || f != float64(int64(f)) || f < min {
		c.fail(ptr+"/"+name, "must be an integer >= %v, not %v", min, v)
	}
}

func (c *manifestChecker) stringArray(m map[string]any, ptr, name string) {
	v, ok := m[name]
	if !ok {
		return
	}
	a, isArr := v.([]any)
	if !isArr {
		c.fail(ptr+"/"+name, "must be an array, not %T", v)
		return
	}
	for i, x := range a {
		if _, ok := x.(string); !ok {
			c.fail(fmt.Sprintf("%s/%s/%d", ptr, name, i), "must be a string, not %T", x)
		}
	}
}

func (c *manifestChecker) array(m map[string]any, ptr, name string, minItems int) []any {
	v, ok := m[name]
	if !ok {
		return nil
	}
	a, isArr := v.([]any)
	if !isArr {
		c.fail(ptr+"/"+name, "must be an array, not %T", v)
		return nil
	}
	if len(a) < minItems {
		c.fail(ptr+"/"+name, "must have at least %d items", minItems)
	}
	return a
}

func (c *manifestChecker) cadence(ptr string, v any) {
	m, ok := c.object(ptr, v, []string{"type"}, []string{"params", "fallback"})
	if !ok {
		return
	}
	c.str(m, ptr, "type", "", "event", "periodic", "streaming", "idle", "cross_loop_signal", "manual")
	if p, ok := m["params"]; ok {
		c.object(ptr+"/params", p, nil, nil)
	}
	if f, ok := m["fallback"]; ok {
		c.cadence(ptr+"/fallback", f)
	}
}

// checkPulseManifest returns every way doc fails the requirements above.
func checkPulseManifest(doc any) []string {
	c := &manifestChecker{}
	top, ok := c.object("", doc,
		[]string{"pulse_protocol_version", "loop_id", "version", "phases", "closure", "cadence", "substrates", "invariants"},
		[]string{"$schema", "loop_name", "owner", "workspace_scope", "description", "nesting", "connections", "telemetry"})
	if !ok {
		return c.problems
	}
	c.str(top, "", "$schema", `^[a-z][a-z0-9+.-]*:`)
	c.str(top, "", "pulse_protocol_version", `^0\.1(\.[0-9]+)?$`)
	c.str(top, "", "loop_id", `^[a-z0-9_]+(\.[a-z0-9_]+)+$`)
	c.str(top, "", "loop_name", "")
	c.str(top, "", "version", `^[0-9]+\.[0-9]+\.[0-9]+$`)
	c.str(top, "", "owner", "")
	c.str(top, "", "workspace_scope", "", "required", "optional", "global")
	c.str(top, "", "description", "")

	kinds := map[string]string{}
	for i, p := range c.array(top, "", "phases", 2) {
		ptr := fmt.Sprintf("/phases/%d", i)
		ph, ok := c.object(ptr, p, []string{"id", "kind"}, []string{"custom_kind", "description", "inputs", "outputs",
			"idempotent", "signature", "timeout_ms", "on_failure", "max_retries", "policy_check", "audit_event", "invariant", "parallel"})
		if !ok {
			continue
		}
		c.str(ph, ptr, "id", `^[a-z0-9_]+$`)
		c.str(ph, ptr, "kind", "", "retrieve", "route", "act", "learn", "consolidate", "custom")
		if ph["kind"] == "custom" {
			if _, ok := ph["custom_kind"]; !ok {
				c.fail(ptr+"/custom_kind", "is required for a custom phase")
			}
		}
		for _, s := range []string{"custom_kind", "description", "signature", "policy_check", "audit_event", "invariant"} {
			c.str(ph, ptr, s, "")
		}
		if in, ok := ph["inputs"]; ok {
			if m, ok := c.object(ptr+"/inputs", in, nil, nil); ok {
				c.str(m, ptr+"/inputs", "from", "")
				c.str(m, ptr+"/inputs", "schema", "")
			}
		}
		if out, ok := ph["outputs"]; ok {
			if m, ok := c.object(ptr+"/outputs", out, nil, nil); ok {
				c.str(m, ptr+"/outputs", "to", "")
				c.str(m, ptr+"/outputs", "schema", "")
			}
		}
		c.boolean(ph, ptr, "idempotent")
		c.boolean(ph, ptr, "parallel")
		c.integer(ph, ptr, "timeout_ms", 0)
		c.integer(ph, ptr, "max_retries", 0)
		c.str(ph, ptr, "on_failure", "", "retry", "rollback", "escalate", "skip", "abort_loop")
		if id, ok := ph["id"].(string); ok {
			if _, dup := kinds[id]; dup {
				c.fail(ptr+"/id", "repeats phase id %q", id)
			}
			kinds[id], _ = ph["kind"].(string)
		}
	}

	if cl, ok := top["closure"]; ok {
		if m, ok := c.object("/closure", cl, []string{"from_phase", "to_phase"}, []string{"via", "guarantee"}); ok {
			c.str(m, "/closure", "from_phase", "")
			c.str(m, "/closure", "to_phase", "")
			c.str(m, "/closure", "via", "")
			c.str(m, "/closure", "guarantee", "", "immediate", "next_tick", "eventual")
			// OS-010 §3.2: the closure routes learn or consolidate back to retrieve.
			from, _ := m["from_phase"].(string)
			to, _ := m["to_phase"].(string)
			if k := kinds[from]; k != "learn" && k != "consolidate" {
				c.fail("/closure/from_phase", "%q must name a learn or consolidate phase", from)
			}
			if kinds[to] != "retrieve" {
				c.fail("/closure/to_phase", "%q must name a retrieve phase", to)
			}
		}
	}
	var haveKinds []string
	for _, k := range kinds {
		haveKinds = append(haveKinds, k)
	}
	for _, k := range []string{"retrieve", "act"} {
		if !slices.Contains(haveKinds, k) {
			c.fail("/phases", "must include a %s phase", k)
		}
	}

	if cd, ok := top["cadence"]; ok {
		c.cadence("/cadence", cd)
	}
	if n, ok := top["nesting"]; ok {
		if m, ok := c.object("/nesting", n, nil, []string{"parent_loop", "inner_loops"}); ok {
			c.strOrNull(m, "/nesting", "parent_loop")
			for i, il := range c.array(m, "/nesting", "inner_loops", 0) {
				ptr := fmt.Sprintf("/nesting/inner_loops/%d", i)
				if im, ok := c.object(ptr, il, []string{"loop_id", "trigger"}, []string{"wait", "timeout_ms"}); ok {
					c.str(im, ptr, "loop_id", "")
					c.str(im, ptr, "trigger", "")
					c.str(im, ptr, "wait", "", "until_stable", "until_done", "fire_forget", "bounded")
					c.integer(im, ptr, "timeout_ms", 0)
				}
			}
		}
	}
	if s, ok := top["substrates"]; ok {
		if m, ok := c.object("/substrates", s, []string{"memory", "policy", "audit", "auth"}, []string{"transport", "time"}); ok {
			for _, k := range []string{"memory", "policy", "audit", "auth", "transport", "time"} {
				c.strOrNull(m, "/substrates", k)
			}
		}
	}
	invariants := []string{"phase_atomicity", "feedback_immutability", "append_only_audit", "kappa_routing",
		"quorum_before_commit", "outcome_grounding", "trace_id_propagation"}
	if inv, ok := top["invariants"]; ok {
		if m, ok := c.object("/invariants", inv, nil, invariants); ok {
			for _, k := range invariants {
				c.boolean(m, "/invariants", k)
			}
		}
	}
	for i, cn := range c.array(top, "", "connections", 0) {
		ptr := fmt.Sprintf("/connections/%d", i)
		if m, ok := c.object(ptr, cn, []string{"id", "emit_phase", "token", "to_loop"},
			[]string{"emit_condition", "envelope", "to_phase", "cadence", "delivery", "max_inflight", "overflow_policy"}); ok {
			for _, k := range []string{"id", "emit_phase", "emit_condition", "to_loop", "to_phase"} {
				c.str(m, ptr, k, "")
			}
			c.str(m, ptr, "envelope", "", "cloudevents.v1")
			c.str(m, ptr, "token", "", pulse.CanonicalTokens()...)
			c.str(m, ptr, "cadence", "", "sync", "async")
			c.str(m, ptr, "delivery", "", "at_least_once", "at_most_once", "exactly_once")
			c.integer(m, ptr, "max_inflight", 1)
			c.str(m, ptr, "overflow_policy", "", "block", "drop_oldest", "drop_newest", "escalate")
		}
	}
	if tm, ok := top["telemetry"]; ok {
		if m, ok := c.object("/telemetry", tm, nil, []string{"namespace", "phase_metrics", "loop_metrics"}); ok {
			c.str(m, "/telemetry", "namespace", "")
			c.stringArray(m, "/telemetry", "phase_metrics")
			c.stringArray(m, "/telemetry", "loop_metrics")
		}
	}
	sort.Strings(c.problems)
	return c.problems
}

func manifestDoc(t testing.TB) map[string]any {
	t.Helper()
	m, err := pulse.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestManifestMeetsPulseSchema(t *testing.T) {
	if p := checkPulseManifest(manifestDoc(t)); len(p) > 0 {
		t.Errorf("static/%s fails PULSE's loop-manifest schema:\n%s", static.PulseManifestFile, strings.Join(p, "\n"))
	}
}

// The checker is not vacuous: each way the spec's own example, or a
// careless edit, breaks PULSE's schema is caught where it happens.
func TestPulseSchemaCheckerRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"not an object", nil, "(document): must be an object"},
		{"no protocol version", func(m map[string]any) { delete(m, "pulse_protocol_version") }, "/pulse_protocol_version: is required"},
		{"newer minor protocol", func(m map[string]any) { m["pulse_protocol_version"] = "0.2" }, "/pulse_protocol_version: \"0.2\" must match"},
		{"spec's hyphenated loop id", func(m map[string]any) { m["loop_id"] = "workbench.skill-workshop" }, "/loop_id: \"workbench.skill-workshop\" must match"},
		{"loop id without a dot", func(m map[string]any) { m["loop_id"] = "workbench" }, "/loop_id: \"workbench\" must match"},
		{"spec's purpose member", func(m map[string]any) { m["purpose"] = "x" }, "/purpose: is not an allowed member"},
		{"spec's cross_loop_signals", func(m map[string]any) { m["cross_loop_signals"] = map[string]any{} }, "/cross_loop_signals: is not an allowed member"},
		{"spec's substrate_dependencies", func(m map[string]any) { m["substrate_dependencies"] = map[string]any{} }, "/substrate_dependencies: is not an allowed member"},
		{"non-semver version", func(m map[string]any) { m["version"] = "0.1" }, "/version: \"0.1\" must match"},
		{"one phase", func(m map[string]any) { m["phases"] = m["phases"].([]any)[:1] }, "/phases: must have at least 2 items"},
		{"spec's phase substrate", func(m map[string]any) { phase(m, 0)["substrate"] = "graphonomous" }, "/phases/0/substrate: is not an allowed member"},
		{"spec's phase cadence", func(m map[string]any) { phase(m, 0)["cadence"] = "on_task_start" }, "/phases/0/cadence: is not an allowed member"},
		{"spec's outputs array", func(m map[string]any) { phase(m, 1)["outputs"] = []any{"AuthorizationBlock"} }, "/phases/1/outputs: must be an object"},
		{"unknown kind", func(m map[string]any) { phase(m, 2)["kind"] = "perceive" }, "/phases/2/kind: \"perceive\" must be one of"},
		{"custom without custom_kind", func(m map[string]any) { phase(m, 1)["kind"] = "custom" }, "/phases/1/custom_kind: is required for a custom phase"},
		{"bad phase id", func(m map[string]any) { phase(m, 0)["id"] = "Retrieve" }, "/phases/0/id: \"Retrieve\" must match"},
		{"negative timeout", func(m map[string]any) { phase(m, 0)["timeout_ms"] = -1.0 }, "/phases/0/timeout_ms: must be an integer >= 0"},
		{"bad on_failure", func(m map[string]any) { phase(m, 2)["on_failure"] = "halt" }, "/phases/2/on_failure: \"halt\" must be one of"},
		{"no retrieve phase", func(m map[string]any) { phase(m, 0)["kind"] = "route" }, "/phases: must include a retrieve phase"},
		{"no closure", func(m map[string]any) { delete(m, "closure") }, "/closure: is required"},
		{"closure back to act", func(m map[string]any) { m["closure"].(map[string]any)["to_phase"] = "act" }, "/closure/to_phase: \"act\" must name a retrieve phase"},
		{"bad guarantee", func(m map[string]any) { m["closure"].(map[string]any)["guarantee"] = "soon" }, "/closure/guarantee: \"soon\" must be one of"},
		{"spec's cadence string", func(m map[string]any) { m["cadence"] = "on_task_start" }, "/cadence: must be an object"},
		{"cadence without type", func(m map[string]any) { delete(m["cadence"].(map[string]any), "type") }, "/cadence/type: is required"},
		{"bad fallback cadence", func(m map[string]any) { m["cadence"].(map[string]any)["fallback"] = map[string]any{"type": "hourly"} }, "/cadence/fallback/type: \"hourly\" must be one of"},
		{"spec's substrates list", func(m map[string]any) { m["substrates"] = []any{"graphonomous"} }, "/substrates: must be an object"},
		{"substrates without auth", func(m map[string]any) { delete(m["substrates"].(map[string]any), "auth") }, "/substrates/auth: is required"},
		{"substrate not a string", func(m map[string]any) { m["substrates"].(map[string]any)["memory"] = 1.0 }, "/substrates/memory: must be a string"},
		{"spec's invariants list", func(m map[string]any) { m["invariants"] = []any{"Every SkillBundle has a verifiable content_hash"} }, "/invariants: must be an object"},
		{"unknown invariant", func(m map[string]any) { m["invariants"].(map[string]any)["content_hash"] = true }, "/invariants/content_hash: is not an allowed member"},
		{"vendor token in a connection", func(m map[string]any) {
			m["connections"] = []any{map[string]any{"id": "c", "emit_phase": "learn", "token": "workbench.v1.SkillCrystallized", "to_loop": "prism.benchmark"}}
		}, "/connections/0/token: \"workbench.v1.SkillCrystallized\" must be one of"},
		{"unknown telemetry member", func(m map[string]any) { m["telemetry"].(map[string]any)["spans"] = true }, "/telemetry/spans: is not an allowed member"},
	}
	for _, c := range cases {
		var doc any = "not a manifest"
		if c.edit != nil {
			m := manifestDoc(t)
			c.edit(m)
			doc = m
		}
		got := checkPulseManifest(doc)
		if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, c.want) }) {
			t.Errorf("%s: want a problem starting %q, got %q", c.name, c.want, got)
		}
	}
}

func phase(m map[string]any, i int) map[string]any {
	return m["phases"].([]any)[i].(map[string]any)
}

// The manifest says what this package does: the loop id and versions, the
// phases in order, and which phase emits which token.
func TestManifestMatchesPackage(t *testing.T) {
	m := manifestDoc(t)
	if m["loop_id"] != pulse.LoopID || m["pulse_protocol_version"] != pulse.ProtocolVersion || m["version"] != skill.WorkbenchVersion {
		t.Errorf("manifest is %v %v %v; package says %s %s %s", m["loop_id"], m["pulse_protocol_version"], m["version"],
			pulse.LoopID, pulse.ProtocolVersion, skill.WorkbenchVersion)
	}
	phases := m["phases"].([]any)
	if len(phases) != len(pulse.Phases()) {
		t.Fatalf("manifest has %d phases, package %d", len(phases), len(pulse.Phases()))
	}
	emitted := map[string]bool{}
	for i, p := range pulse.Phases() {
		ph := phases[i].(map[string]any)
		if ph["id"] != string(p) || ph["kind"] != string(p) {
			t.Errorf("phase %d is %v/%v, want %s", i, ph["id"], ph["kind"], p)
		}
		var got []string
		for _, e := range ph["outputs"].(map[string]any)["emits"].([]any) {
			got = append(got, e.(string))
			emitted[e.(string)] = true
			if _, err := pulse.EventType(e.(string)); err != nil {
				t.Errorf("phase %s emits %v", p, err)
			}
		}
		want := pulse.Emits(p)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("phase %s: manifest emits %v, package %v", p, got, want)
		}
	}
	// Everything spec §9 lists under cross_loop_signals.emits is emitted.
	for _, tok := range []string{"TopologyContext", "OutcomeSignal", "SurpriseSignal", "ConsolidationEvent",
		"workbench.v1.SkillCrystallized", "workbench.v1.ReplayExecuted"} {
		if !emitted[tok] {
			t.Errorf("no phase emits %s", tok)
		}
	}
}

// The manifest snapshot a bundle carries is the file, member for member.
func TestManifestSnapshotIsTheFile(t *testing.T) {
	m := manifestDoc(t)
	got, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	a, err := canonjson.Transform(got)
	if err != nil {
		t.Fatal(err)
	}
	b, err := canonjson.Transform(static.PulseManifest())
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Error("Manifest() differs from the file")
	}
	orig := m["loop_id"]
	m["loop_id"] = "changed"
	if manifestDoc(t)["loop_id"] != orig {
		t.Error("Manifest() returned shared state")
	}
}

// workbench.ampersand.json is spec §10's declaration as valid JSON (the
// spec's example has // comments, which JSON does not allow): the same
// members, the capabilities this build uses among its consumes.
func TestAmpersandDeclaration(t *testing.T) {
	doc, err := canonjson.Parse(static.Ampersand(), canonjson.DefaultLimits())
	if err != nil {
		t.Fatalf("%s: %v", static.AmpersandFile, err)
	}
	type caps struct {
		Consumes []string `json:"consumes"`
		Provides []string `json:"provides"`
	}
	var got struct {
		AmpersandVersion string `json:"ampersand_version"`
		Name             string `json:"name"`
		Version          string `json:"version"`
		Capabilities     caps   `json:"capabilities"`
	}
	dec := json.NewDecoder(strings.NewReader(string(doc.Canonical())))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%s: %v", static.AmpersandFile, err)
	}
	if got.AmpersandVersion != skill.AmpersandVersion || got.Name != "workbench" || got.Version != skill.WorkbenchVersion {
		t.Errorf("declares %s %s %s", got.AmpersandVersion, got.Name, got.Version)
	}
	wantConsumes := []string{"&memory.episodic", "&reason.attend", "&space.region", "&body.browser", "&body.os", "&govern.policy"}
	if !slices.Equal(got.Capabilities.Consumes, wantConsumes) {
		t.Errorf("consumes %v, want spec §10's %v", got.Capabilities.Consumes, wantConsumes)
	}
	for _, c := range []string{skill.CapabilityBrowser, skill.CapabilityOS, skill.CapabilityEpisodic} {
		if !slices.Contains(got.Capabilities.Consumes, c) {
			t.Errorf("consumes lacks %s", c)
		}
	}
	if !slices.Equal(got.Capabilities.Provides, []string{"&memory.skill_manifest"}) {
		t.Errorf("provides %v", got.Capabilities.Provides)
	}
}
