package httpapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"workbench/pkg/body"
	"workbench/pkg/capability"
	"workbench/pkg/policy"
	"workbench/pkg/runs"
	"workbench/pkg/skill"
)

// The document describes what each answer carries, not its spelling.
// The decoders here read the contract as published under schemas/ (the
// canonical names) and the reasonable variants another author writes
// from the same description: other member names (id for capability_id,
// status for state, seq for sequence …), availability as a string or as
// an object with a state and reasons, synchronous {status, result}
// envelopes. Each variant read is noted (Notes), so the conformance check
// can say what the client tolerated; what it cannot use is an error that
// says what and where.

// Notes collects the departures from the published contract that a
// decoder tolerated. A nil *Notes collects nothing.
type Notes struct{ list []string }

func (n *Notes) addf(format string, args ...any) {
	if n != nil {
		n.list = append(n.list, fmt.Sprintf(format, args...))
	}
}

// List returns the notes in the order they were made.
func (n *Notes) List() []string {
	if n == nil {
		return nil
	}
	return slices.Clone(n.list)
}

// obj is a JSON object read member by member.
type obj map[string]json.RawMessage

func asObj(raw json.RawMessage) (obj, bool) {
	var o obj
	if err := json.Unmarshal(raw, &o); err != nil || o == nil {
		return nil, false
	}
	return o, true
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// pick returns the first of names present and not null, and its name.
func (o obj) pick(names ...string) (json.RawMessage, string) {
	for _, k := range names {
		if v, ok := o[k]; ok && !isNull(v) {
			return v, k
		}
	}
	return nil, ""
}

// text reads a scalar as a string: a string as it is, a number or a
// boolean as written.
func text(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	t := strings.TrimSpace(string(raw))
	if t == "true" || t == "false" {
		return t, true
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return t, true
	}
	return "", false
}

// str reads the first of names as a string and notes an alias. where
// says whose member it is, for the note.
func (o obj) str(n *Notes, where string, names ...string) string {
	v, k := o.pick(names...)
	if v == nil {
		return ""
	}
	s, ok := text(v)
	if !ok {
		return ""
	}
	if k != names[0] {
		n.addf("%s: %s read as %s", where, k, names[0])
	}
	return s
}

// strs reads a string, an array of strings, or an array of objects with
// a name, description, reason or message, as a list of strings.
func strs(raw json.RawMessage) []string {
	if isNull(raw) {
		return nil
	}
	if s, ok := text(raw); ok {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []string
	for _, it := range list {
		if s, ok := text(it); ok && s != "" {
			out = append(out, s)
			continue
		}
		if o, ok := asObj(it); ok {
			if s := o.str(nil, "", "description", "reason", "message", "name", "id"); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func word(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer("-", "_", " ", "_", ".", "_").Replace(s)
}

// --- the catalog --------------------------------------------------------

// DecodeCatalog reads the answer of GET /api/capabilities. Each entry is
// decoded on its own (DecodeCapability): an entry the client cannot use
// is in Listing.Unusable with the reason, and the others are listed.
//
// The routes are the document's own: the client invokes only through
// POST /api/capabilities/{capability_id}/invoke, whatever the catalog
// says. Its invoke contract is read under whatever names it has
// (checkInvoke); one that contradicts the document — another route or
// method — is in Listing.Notes, so the user sees what the client will not
// do, and the catalog is listed all the same.
func DecodeCatalog(data []byte, n *Notes) (capability.Listing, error) {
	var l capability.Listing
	var entries []json.RawMessage
	top, isObj := asObj(data)
	switch {
	case isObj:
		raw, k := top.pick("capabilities", "catalog", "items", "data", "results", "entries")
		if raw == nil {
			return l, fmt.Errorf("the catalog has no capabilities member")
		}
		if k != "capabilities" {
			n.addf("catalog: %s read as capabilities", k)
		}
		if err := json.Unmarshal(raw, &entries); err != nil {
			return l, fmt.Errorf("the catalog's %s is not an array: %w", k, err)
		}
		if note := checkInvoke(top, n); note != "" {
			l.Notes = append(l.Notes, note)
		}
		l.Failures = failures(top, n)
	default:
		if err := json.Unmarshal(data, &entries); err != nil {
			return l, fmt.Errorf("the catalog is neither an object nor an array: %w", err)
		}
		n.addf("catalog: a bare array, read as {capabilities}; no invoke contract declared (the client uses POST %s)", InvokeRoute)
	}
	seen := map[string]int{}
	for i, raw := range entries {
		c, err := DecodeCapability(raw, n, fmt.Sprintf("capabilities[%d]", i))
		if err != nil {
			l.Unusable = append(l.Unusable, &capability.EntryError{Index: i, ID: entryID(raw), Reason: err.Error()})
			continue
		}
		if j, dup := seen[c.ID]; dup {
			l.Unusable = append(l.Unusable, &capability.EntryError{Index: i, ID: c.ID,
				Reason: fmt.Sprintf("the id is already listed by entry %d", j)})
			continue
		}
		seen[c.ID] = i
		l.Capabilities = append(l.Capabilities, c)
	}
	return l, nil
}

func entryID(raw json.RawMessage) string {
	if o, ok := asObj(raw); ok {
		return o.str(nil, "", "capability_id", "id", "capabilityId")
	}
	return ""
}

// placeholder matches the spellings of the capability id in a route.
var placeholders = []string{"{capability_id}", "{capabilityId}", "{id}", ":capability_id", ":capabilityId", ":id", "<capability_id>"}

// route reads a route declaration: a string "POST /path" or "/path", or
// an object naming the method and the path under any of the names
// authors give them. where names it in notes; ok is false when raw is
// neither.
func route(raw json.RawMessage, n *Notes, where string) (method, path string, ok bool) {
	if s, isText := text(raw); isText {
		f := strings.Fields(s)
		switch len(f) {
		case 1:
			path = f[0]
		case 2:
			method, path = f[0], f[1]
		}
		n.addf("%s: a string, read as {method, route}", where)
		return method, path, true
	}
	o, isObj := asObj(raw)
	if !isObj {
		return "", "", false
	}
	method = o.str(n, where, "method", "http_method", "verb")
	path = o.str(n, where, "route", "path", "path_template", "route_template", "url", "url_template", "href", "template", "uri", "endpoint")
	return method, path, true
}

// checkInvoke reads the catalog's invoke contract, under whatever names
// it has, and says (for Listing.Notes) where it contradicts the
// document's route; "" when it agrees, or declares none, or cannot be
// read (noted for the conformance check).
func checkInvoke(top obj, n *Notes) string {
	raw, k := top.pick("invoke", "invoke_contract", "governed_invoke", "invocation", "execution")
	if raw == nil {
		n.addf("catalog: no invoke contract declared; the client uses POST %s", InvokeRoute)
		return ""
	}
	if k != "invoke" {
		n.addf("catalog: %s read as invoke", k)
	}
	method, path, ok := route(raw, n, "catalog.invoke")
	if !ok || path == "" {
		n.addf("catalog: the invoke contract names no route the client can read; the client uses POST %s", InvokeRoute)
		return ""
	}
	norm := strings.TrimRight(path, "/")
	for _, p := range placeholders {
		if p != "{capability_id}" && strings.Contains(norm, p) {
			norm = strings.ReplaceAll(norm, p, "{capability_id}")
			n.addf("catalog.invoke: the placeholder %s read as {capability_id}", p)
		}
	}
	if norm != InvokeRoute || (method != "" && !strings.EqualFold(method, "POST")) {
		note := fmt.Sprintf("The backend declares its invoke contract as %s; the document's is POST %s, and that is the only route this client invokes through.",
			strings.TrimSpace(method+" "+path), InvokeRoute)
		n.addf("catalog.invoke: %s", note)
		return note
	}
	return ""
}

// ApprovalRoutes are the routes of a backend's approvals surface, which
// the document does not name: the client calls them only when the
// catalog or a descriptor declares them (DecodeApprovalRoutes), never
// guessed. Grant and Deny hold the placeholder {approval_id}; either may
// be empty when the backend declares no such route.
type ApprovalRoutes struct {
	List, Grant, Deny string
}

// DecodeApprovalRoutes reads the approvals surface a catalog or a
// descriptor declares: a member approvals (or approvals_list, or
// links.approvals) that is a route ("GET /api/approvals", "/api/approvals")
// or an object {list|route|path|href, grant, deny}. ok is false when it
// declares none the client can read.
func DecodeApprovalRoutes(data []byte) (ApprovalRoutes, bool) {
	var r ApprovalRoutes
	top, ok := asObj(data)
	if !ok {
		return r, false
	}
	raw, _ := top.pick("approvals", "approvals_list", "approval_routes")
	if raw == nil {
		if links, ok := asObj(top["links"]); ok {
			raw, _ = links.pick("approvals")
		}
	}
	if raw == nil {
		return r, false
	}
	if _, isList := asList(raw); isList {
		// A list of approvals, not a route to them.
		return r, false
	}
	one := func(raw json.RawMessage, method string) string {
		m, p, ok := route(raw, nil, "")
		if !ok || !strings.HasPrefix(p, "/") || (m != "" && !strings.EqualFold(m, method)) {
			return ""
		}
		return p
	}
	if o, ok := asObj(raw); ok {
		if v, _ := o.pick("list", "route", "path", "href", "url"); v != nil {
			r.List = one(v, "GET")
		}
		if v, _ := o.pick("grant", "approve"); v != nil {
			r.Grant = one(v, "POST")
		}
		if v, _ := o.pick("deny", "reject"); v != nil {
			r.Deny = one(v, "POST")
		}
	} else {
		r.List = one(raw, "GET")
	}
	for _, p := range []string{"{id}", ":id", ":approval_id", "{approvalId}"} {
		r.Grant = strings.ReplaceAll(r.Grant, p, "{approval_id}")
		r.Deny = strings.ReplaceAll(r.Deny, p, "{approval_id}")
	}
	return r, r.List != ""
}

func asList(raw json.RawMessage) ([]json.RawMessage, bool) {
	var l []json.RawMessage
	return l, json.Unmarshal(raw, &l) == nil
}

func failures(top obj, n *Notes) []*capability.SourceError {
	raw, k := top.pick("failures", "source_failures", "errors", "sources_failed")
	if raw == nil {
		return nil
	}
	if k != "failures" {
		n.addf("catalog: %s read as failures", k)
	}
	var out []*capability.SourceError
	if m, ok := asObj(raw); ok {
		// {source: error}
		n.addf("catalog.failures: an object of source → error, read as [{source, error}]")
		keys := make([]string, 0, len(m))
		for s := range m {
			keys = append(keys, s)
		}
		slices.Sort(keys)
		for _, s := range keys {
			msg := strings.Join(strs(m[s]), "; ")
			if o, ok := asObj(m[s]); ok {
				msg = o.str(nil, "", "error", "message", "reason")
			}
			out = append(out, &capability.SourceError{Source: s, Err: fmt.Errorf("%s", cmp.Or(msg, "failed"))})
		}
		return out
	}
	var list []json.RawMessage
	json.Unmarshal(raw, &list)
	for i, it := range list {
		o, ok := asObj(it)
		if !ok {
			continue
		}
		where := fmt.Sprintf("catalog.failures[%d]", i)
		src := o.str(n, where, "source", "provider", "server", "name")
		msg := o.str(n, where, "error", "message", "reason", "detail")
		if e, ok := asObj(o["error"]); ok {
			msg = e.str(nil, "", "message", "reason", "code")
		}
		out = append(out, &capability.SourceError{Source: cmp.Or(src, "unknown source"), Err: fmt.Errorf("%s", cmp.Or(msg, "failed"))})
	}
	return out
}

// DecodeCapability reads one catalog entry or descriptor. where names it
// in notes ("capabilities[3]", "descriptor"). It fails — the entry is
// unusable — when the entry is not an object, has no id, or has an input
// schema that is not a JSON Schema (an object or a boolean), or an action
// the client cannot use (no name, a name twice, such a schema).
//
// An entry that lists several actions is one capability with those
// actions (capability.Capability.Actions): each has its name, its input
// schema, its side effect and render hint (the entry's, when the action
// declares none). An entry without actions is its own action, named by
// its name (or action) member, else by its id.
func DecodeCapability(raw json.RawMessage, n *Notes, where string) (capability.Capability, error) {
	var c capability.Capability
	o, ok := asObj(raw)
	if !ok {
		return c, fmt.Errorf("not a JSON object")
	}
	c.ID = o.str(n, where, "capability_id", "id", "capabilityId")
	if c.ID == "" {
		return c, fmt.Errorf("no capability_id (nor id)")
	}
	where += " (" + c.ID + ")"
	src, _, _ := capability.SplitID(c.ID)
	c.Title = cmp.Or(o.str(n, where, "title", "label", "display_name", "name"), c.ID)
	c.Description = o.str(n, where, "description", "summary")
	c.Source = cmp.Or(o.str(n, where, "source", "provider", "namespace", "server"), src, "backend")

	var actions []obj
	if raw, _ := o.pick("actions"); raw != nil {
		list, ok := asList(raw)
		if !ok {
			return c, fmt.Errorf("actions is not an array")
		}
		for i, it := range list {
			a, ok := asObj(it)
			if !ok {
				return c, fmt.Errorf("actions[%d] is not an object", i)
			}
			actions = append(actions, a)
		}
	}
	if len(actions) == 0 {
		// The entry is its one action.
		a, err := decodeAction(o, o, n, where, "")
		if err != nil {
			return c, err
		}
		a.Name = cmp.Or(o.str(nil, where, "name", "action", "tool", "tool_name"), c.ID)
		c.Name, c.InputSchema, c.Effect, c.RenderHint = a.Name, a.InputSchema, a.Effect, a.RenderHint
	} else {
		seen := map[string]bool{}
		for i, a := range actions {
			at := fmt.Sprintf("actions[%d]", i)
			act, err := decodeAction(a, o, n, where+"."+at, at+": ")
			if err != nil {
				return c, err
			}
			act.Name = a.str(n, where+"."+at, "name", "action", "id", "tool", "action_name")
			if act.Name == "" {
				return c, fmt.Errorf("%s has no name", at)
			}
			if seen[act.Name] {
				return c, fmt.Errorf("%s: the action %q is listed twice", at, act.Name)
			}
			seen[act.Name] = true
			act.Title = a.str(nil, "", "title", "label")
			act.Description = a.str(nil, "", "description", "summary")
			c.Actions = append(c.Actions, act)
		}
		if len(c.Actions) == 1 {
			n.addf("%s: its one action read as the capability's", where)
			c.Description = cmp.Or(c.Description, c.Actions[0].Description)
			c.Actions[0].Description = ""
		}
		first := c.Actions[0]
		c.Name, c.InputSchema, c.Effect, c.RenderHint = first.Name, first.InputSchema, first.Effect, first.RenderHint
		if len(c.Actions) == 1 {
			c.Actions = nil
		}
	}
	c.Availability, c.Reasons, c.Missing = availability(o, n, where)
	if display(o) {
		c.Availability = capability.Unavailable
		c.Reasons = append(c.Reasons, "display-only (a legacy REST twin): never executed from here")
	}
	c.PolicyCapability = o.str(n, where, "policy_capability", "capability")
	if a, ok := o["annotations"]; ok {
		var an body.Annotations
		if json.Unmarshal(a, &an) == nil {
			c.Annotations = an
		}
	}
	if t, ok := o["trusted"]; ok {
		json.Unmarshal(t, &c.Trusted)
	}
	return c, nil
}

// decodeAction reads an action's input schema, side effect and render
// hint from a (the entry itself, for an entry that is its one action),
// falling back to the entry's for the side effect and render hint. what
// prefixes its errors.
func decodeAction(a, entry obj, n *Notes, where, what string) (capability.Action, error) {
	var act capability.Action
	schema, k := a.pick("input_schema", "inputSchema", "schema", "json_schema", "parameters", "input", "args_schema")
	switch t := bytes.TrimSpace(schema); {
	case schema == nil:
		n.addf("%s: no input_schema; read as an object with no members", where)
		act.InputSchema = json.RawMessage(`{"type":"object"}`)
	case t[0] == '{' || string(t) == "true" || string(t) == "false":
		if k != "input_schema" {
			n.addf("%s: %s read as input_schema", where, k)
		}
		if _, ok := asObj(schema); !ok && t[0] == '{' {
			return act, fmt.Errorf("%s%s is not valid JSON", what, k)
		}
		act.InputSchema = append(json.RawMessage(nil), t...)
	default:
		return act, fmt.Errorf("%s%s is not a JSON Schema (an object or a boolean)", what, k)
	}
	act.Effect = effect(entry, a, n, where)
	act.RenderHint = renderHint(entry, a, n, where)
	return act, nil
}

func display(o obj) bool {
	for _, k := range []string{"display_only", "displayOnly", "legacy", "legacy_rest"} {
		var b bool
		if json.Unmarshal(o[k], &b) == nil && b {
			return true
		}
	}
	kind := word(o.str(nil, "", "kind", "type"))
	return kind == "legacy_rest" || kind == "rest_twin" || kind == "display_only"
}

// effectWords maps the spellings of a side effect to the effect.
var effectWords = map[string]policy.Effect{
	"read": policy.EffectRead, "read_only": policy.EffectRead, "readonly": policy.EffectRead, "none": policy.EffectRead,
	"safe": policy.EffectRead, "query": policy.EffectRead, "no_side_effects": policy.EffectRead, "pure": policy.EffectRead,
	"write": policy.EffectWrite, "writes": policy.EffectWrite, "mutating": policy.EffectWrite, "mutation": policy.EffectWrite,
	"mutates": policy.EffectWrite, "create": policy.EffectWrite, "update": policy.EffectWrite, "side_effect": policy.EffectWrite,
	"destructive": policy.EffectDestructive, "delete": policy.EffectDestructive, "irreversible": policy.EffectDestructive,
	"dangerous": policy.EffectDestructive,
	"unknown":   policy.EffectUnknown,
}

var severity = map[policy.Effect]int{policy.EffectRead: 0, policy.EffectWrite: 1, policy.EffectUnknown: 2, policy.EffectDestructive: 3}

// effect reads the side-effect declaration: a word, an object with a
// kind, or a list of words (the most severe wins), or boolean flags. An
// entry that declares none, or a word the client does not know, is
// unknown: it needs the user's confirmation.
func effect(o, action obj, n *Notes, where string) policy.Effect {
	raw, k := action.pick("side_effect", "side_effects", "sideEffect", "effect", "effects")
	if raw == nil {
		raw, k = o.pick("side_effect", "side_effects", "sideEffect", "effect", "effects")
	}
	if raw == nil {
		// The most severe flag set wins.
		for _, f := range []struct {
			flag string
			e    policy.Effect
		}{{"destructive", policy.EffectDestructive}, {"mutating", policy.EffectWrite},
			{"read_only", policy.EffectRead}, {"readOnly", policy.EffectRead}} {
			var b bool
			if json.Unmarshal(o[f.flag], &b) == nil && b {
				n.addf("%s: the flag %s read as side_effect %s", where, f.flag, f.e)
				return f.e
			}
		}
		n.addf("%s: no side_effect declared; read as unknown (confirmation needed)", where)
		return policy.EffectUnknown
	}
	if k != "side_effect" {
		n.addf("%s: %s read as side_effect", where, k)
	}
	var words []string
	if eo, ok := asObj(raw); ok {
		words = []string{eo.str(n, where+"."+k, "kind", "type", "effect", "level", "value")}
	} else {
		words = strs(raw)
	}
	out, known := policy.EffectRead, false
	for _, w := range words {
		e, ok := effectWords[word(w)]
		if !ok {
			n.addf("%s: side effect %q is not one the client knows; read as unknown (confirmation needed)", where, w)
			e = policy.EffectUnknown
		}
		if !known || severity[e] > severity[out] {
			out, known = e, true
		}
	}
	if !known {
		return policy.EffectUnknown
	}
	return out
}

var availabilityWords = map[string]capability.Availability{
	"available": capability.Available, "ok": capability.Available, "ready": capability.Available, "enabled": capability.Available,
	"healthy": capability.Available, "up": capability.Available, "true": capability.Available,
	"degraded": capability.Degraded, "partial": capability.Degraded, "limited": capability.Degraded, "warning": capability.Degraded,
	"unavailable": capability.Unavailable, "disabled": capability.Unavailable, "down": capability.Unavailable,
	"offline": capability.Unavailable, "blocked": capability.Unavailable, "error": capability.Unavailable,
	"missing_preconditions": capability.Unavailable, "false": capability.Unavailable,
}

// availability reads availability as a word (or a boolean), or as an
// object with a state and its reasons and missing preconditions; reasons
// beside it on the entry are read too. An entry that states none is
// available (preflight decides); a word the client does not know makes
// it unavailable, with that word as the reason.
func availability(o obj, n *Notes, where string) (capability.Availability, []string, []string) {
	raw, k := o.pick("availability", "available", "status", "state")
	reasons := strs(first(o, "reasons", "reason", "unavailable_reason"))
	missing := strs(first(o, "missing_preconditions", "missing", "preconditions_missing"))
	if raw == nil {
		n.addf("%s: no availability; read as available (preflight decides)", where)
		return capability.Available, reasons, missing
	}
	if k != "availability" {
		n.addf("%s: %s read as availability", where, k)
	}
	w, isText := text(raw)
	if ao, ok := asObj(raw); ok {
		n.addf("%s: availability is an object, read as its state and reasons", where)
		w = ao.str(n, where+".availability", "state", "status", "value", "availability")
		if b, ok := ao["available"]; ok && w == "" {
			w, _ = text(b)
		}
		reasons = append(reasons, strs(first(ao, "reasons", "reason", "why", "message"))...)
		missing = append(missing, strs(first(ao, "missing_preconditions", "missing", "preconditions"))...)
	} else if !isText {
		return capability.Unavailable, append(reasons, "availability is neither a word nor an object"), missing
	}
	a, ok := availabilityWords[word(w)]
	if !ok {
		return capability.Unavailable, append(reasons, fmt.Sprintf("availability %q is not one this client knows", w)), missing
	}
	return a, reasons, missing
}

func first(o obj, names ...string) json.RawMessage {
	v, _ := o.pick(names...)
	return v
}

// renderHint reads the action's render hint, else the entry's.
func renderHint(o, action obj, n *Notes, where string) string {
	names := []string{"render_hint", "renderHint", "render", "hint", "result_renderer", "renderer"}
	raw, k := action.pick(names...)
	if raw == nil {
		raw, k = o.pick(names...)
	}
	if raw == nil {
		return capability.HintJSON
	}
	if k != "render_hint" {
		n.addf("%s: %s read as render_hint", where, k)
	}
	if ro, ok := asObj(raw); ok {
		return cmp.Or(ro.str(nil, "", "hint", "type", "kind", "renderer"), capability.HintJSON)
	}
	s, _ := text(raw)
	return cmp.Or(s, capability.HintJSON)
}

// --- preflight ----------------------------------------------------------

// decisionWords maps the spellings of a preflight decision.
var decisionWords = map[string]string{
	"allow": skill.DecisionAllow, "allowed": skill.DecisionAllow, "permit": skill.DecisionAllow, "eligible": skill.DecisionAllow,
	"deny": skill.DecisionDeny, "denied": skill.DecisionDeny, "forbid": skill.DecisionDeny, "forbidden": skill.DecisionDeny,
	"approval_required": skill.DecisionApprovalRequired, "requires_approval": skill.DecisionApprovalRequired,
	"needs_approval": skill.DecisionApprovalRequired, "queued": skill.DecisionApprovalRequired,
	"queue": skill.DecisionApprovalRequired, "pending_approval": skill.DecisionApprovalRequired,
	"invalid": DecisionInvalid, "unavailable": DecisionUnavailable,
}

// Decisions of a preview besides the policy's: the document names
// invalid and unavailable actions beside denied ones.
const (
	DecisionInvalid     = "invalid"
	DecisionUnavailable = "unavailable"
)

// DecodePreview reads the answer of POST …/preflight. The decision
// decides: allow (or an eligible approval_required/queued) makes the
// action executable, unless the document's eligibility says otherwise
// (eligible: false) or the input has problems; deny, invalid and
// unavailable do not, and their reason is the backend's own. Members the
// product adds (executable, needs_confirmation) are not required: the
// confirmation follows from the side effect (c, the refreshed
// descriptor, when the answer does not name one).
func DecodePreview(data []byte, c capability.Capability, n *Notes) (capability.Preview, error) {
	var pv capability.Preview
	o, ok := asObj(data)
	if !ok {
		return pv, fmt.Errorf("the preflight answer is not a JSON object")
	}
	pv.NonAuthoritative = true
	pv.Capability = c
	if raw, ok := o["capability"]; ok {
		if dc, err := DecodeCapability(raw, nil, "preflight.capability"); err == nil {
			pv.Capability = dc
		}
	}
	// The decision may be a word or an object {decision, reason, rule}.
	var auth obj
	rawDec, k := o.pick("decision", "result", "outcome", "verdict", "policy_decision")
	if rawDec == nil {
		return pv, fmt.Errorf("the preflight answer has no decision")
	}
	if k != "decision" {
		n.addf("preflight: %s read as decision", k)
	}
	dw, isText := text(rawDec)
	if !isText {
		var ok bool
		if auth, ok = asObj(rawDec); !ok {
			return pv, fmt.Errorf("the preflight decision is neither a word nor an object")
		}
		n.addf("preflight: the decision is an object, read as its decision and reason")
		dw = auth.str(n, "preflight.decision", "decision", "outcome", "result", "value")
	}
	d, ok := decisionWords[word(dw)]
	if !ok {
		return pv, fmt.Errorf("the preflight decision %q is not one this client knows (allow, deny, approval_required, invalid, unavailable)", dw)
	}
	pv.Decision = d
	pv.Reason = o.str(n, "preflight", "reason", "message", "explanation", "detail")
	if auth != nil {
		pv.Reason = cmp.Or(pv.Reason, auth.str(nil, "", "reason", "message"))
		pv.Rule = auth.str(nil, "", "rule", "rule_id")
	}
	if pv.Reason == "" {
		pv.Reason = strings.Join(strs(first(o, "reasons")), "; ")
	}
	pv.Rule = cmp.Or(o.str(nil, "", "rule"), pv.Rule)
	pv.Strength = o.str(nil, "", "strength")
	if raw, ok := o["authorization"]; ok {
		json.Unmarshal(raw, &pv.Authorization)
	}
	pv.Problems = strs(first(o, "problems", "errors", "validation_errors", "issues"))
	pv.SchemaError = o.str(nil, "", "schema_error")

	var approval bool
	json.Unmarshal(o["approval_required"], &approval)
	pv.ApprovalRequired = approval || d == skill.DecisionApprovalRequired
	if pv.ApprovalRequired && d == skill.DecisionAllow {
		pv.Decision = skill.DecisionApprovalRequired
	}
	pv.SideEffect = pv.Capability.Effect
	if raw, k := o.pick("side_effect", "side_effects", "effect"); raw != nil {
		pv.SideEffect = effect(obj{k: raw}, obj{}, nil, "")
	}
	if raw, ok := o["needs_confirmation"]; ok {
		json.Unmarshal(raw, &pv.NeedsConfirmation)
	} else {
		pv.NeedsConfirmation = pv.SideEffect != policy.EffectRead
	}
	// Eligibility as the document words it; executable as the product
	// words it. Either one false withholds the action.
	eligible := true
	for _, k := range []string{"eligible", "executable"} {
		var b *bool
		if json.Unmarshal(o[k], &b) == nil && b != nil && !*b {
			eligible = false
		}
	}
	pv.Executable = eligible && len(pv.Problems) == 0 && pv.Capability.Availability != capability.Unavailable &&
		(pv.Decision == skill.DecisionAllow || pv.Decision == skill.DecisionApprovalRequired)
	return pv, nil
}

// --- invoke ---------------------------------------------------------------

var runningWords = map[string]bool{"running": true, "accepted": true, "queued": true, "started": true, "dispatched": true, "in_progress": true, "pending": true}
var approvalWords = map[string]bool{"approval_required": true, "pending_approval": true, "awaiting_approval": true, "requires_approval": true, "needs_approval": true}
var failedWords = map[string]bool{"error": true, "failed": true, "failure": true, "errored": true}

// DecodeReceipt reads a successful answer of POST …/invoke (status is its
// HTTP status, 200, 201 or 202). A status of running (or accepted,
// queued …) is a run to follow; approval_required a pending approval; a
// synchronous answer — a {status, result} envelope, or any other body of
// a 200 — is the result itself, StatusCompleted (StatusFailed when its
// status says error or failed), with the original kept in Result. The
// run id is detected wherever the answer puts it: run_id, runId, run.id,
// or inside the result.
func DecodeReceipt(status int, data []byte, n *Notes) (capability.Receipt, error) {
	var rc capability.Receipt
	o, ok := asObj(data)
	if !ok {
		if status == 202 {
			return rc, fmt.Errorf("the 202 answer is not a JSON object")
		}
		n.addf("invoke: a %d answer that is not an object, read as the result", status)
		rc.Status, rc.Result = capability.StatusCompleted, append(json.RawMessage(nil), bytes.TrimSpace(data)...)
		return rc, nil
	}
	rc.RunID = runs.RunID(runID(o, n))
	rc.SessionID = runs.SessionID(o.str(n, "invoke", "session_id", "sessionId"))
	rc.ApprovalID = o.str(n, "invoke", "approval_id", "approvalId")
	if ao, ok := asObj(o["approval"]); ok && rc.ApprovalID == "" {
		rc.ApprovalID = ao.str(nil, "", "approval_id", "id")
		n.addf("invoke: approval.id read as approval_id")
	}
	if raw, ok := o["decision"]; ok {
		json.Unmarshal(raw, &rc.Decision)
	}
	w := word(o.str(n, "invoke", "status", "state"))
	switch {
	case approvalWords[w]:
		rc.Status = capability.StatusApprovalRequired
		if rc.ApprovalID == "" {
			return rc, fmt.Errorf("the answer requires approval but names no approval_id")
		}
	case runningWords[w] && w != "running":
		n.addf("invoke: status %q read as running", w)
		fallthrough
	case w == "running":
		rc.Status = capability.StatusRunning
		if rc.RunID == "" {
			return rc, fmt.Errorf("the answer says %s but binds no run_id to follow", w)
		}
	case status == 202:
		return rc, fmt.Errorf("202 with status %q, neither running nor approval_required", w)
	case failedWords[w]:
		rc.Status, rc.Result = capability.StatusFailed, append(json.RawMessage(nil), bytes.TrimSpace(data)...)
	default:
		rc.Status, rc.Result = capability.StatusCompleted, append(json.RawMessage(nil), bytes.TrimSpace(data)...)
	}
	return rc, nil
}

func runID(o obj, n *Notes) string {
	if id := o.str(n, "invoke", "run_id", "runId"); id != "" {
		return id
	}
	if ro, ok := asObj(o["run"]); ok {
		n.addf("invoke: run.id read as run_id")
		return ro.str(nil, "", "run_id", "id")
	}
	if ro, ok := asObj(o["result"]); ok {
		return ro.str(nil, "", "run_id", "runId")
	}
	return ""
}

// --- errors -----------------------------------------------------------------

// DecodeError reads a non-2xx answer's body: {error: {code, message,
// problems}} as published, {error: "message", code}, {code, message},
// {detail} or plain text.
func DecodeError(data []byte) ErrorDetail {
	var d ErrorDetail
	o, ok := asObj(data)
	if !ok {
		if t := strings.TrimSpace(string(data)); len(t) > 0 && len(t) < 500 && !strings.HasPrefix(t, "<") {
			d.Message = t
		}
		return d
	}
	inner := o
	if eo, ok := asObj(o["error"]); ok {
		inner = eo
	} else if s, ok := text(o["error"]); ok && s != "" {
		d.Message = s
	}
	d.Code = cmp.Or(inner.str(nil, "", "code", "error_code", "type"), o.str(nil, "", "code", "error_code"))
	d.Message = cmp.Or(inner.str(nil, "", "message", "reason", "detail", "title"), d.Message, o.str(nil, "", "message", "reason", "detail"))
	d.Problems = strs(first(inner, "problems", "errors", "issues"))
	if len(d.Problems) == 0 {
		d.Problems = strs(first(o, "problems", "issues"))
	}
	d.ApprovalID = cmp.Or(inner.str(nil, "", "approval_id"), o.str(nil, "", "approval_id"))
	return d
}

// --- runs -------------------------------------------------------------------

// DecodeRuns reads the answer of GET /api/runs — {runs}, {items}, {data}
// or a bare array, each run with run_id or id, state or status, and a
// start time under started_at, created_at, start_time … — and sorts it
// newest first: the client does not rely on the backend's order. A run
// without an id cannot be selected and is left out with a note.
func DecodeRuns(data []byte, n *Notes) ([]runs.Run, error) {
	var list []json.RawMessage
	if o, ok := asObj(data); ok {
		raw, k := o.pick("runs", "items", "data", "results")
		if raw == nil {
			return nil, fmt.Errorf("the runs answer has no runs member")
		}
		if k != "runs" {
			n.addf("runs: %s read as runs", k)
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("the runs answer's %s is not an array: %w", k, err)
		}
	} else if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("the runs answer is neither an object nor an array: %w", err)
	} else {
		n.addf("runs: a bare array, read as {runs}")
	}
	out := make([]runs.Run, 0, len(list))
	for i, raw := range list {
		o, ok := asObj(raw)
		where := fmt.Sprintf("runs[%d]", i)
		if !ok {
			n.addf("%s: not an object; left out", where)
			continue
		}
		r := runs.Run{
			ID:         runs.RunID(o.str(n, where, "run_id", "id", "runId")),
			SessionID:  runs.SessionID(o.str(n, where, "session_id", "sessionId")),
			Kind:       runs.Kind(cmp.Or(o.str(nil, where, "kind", "type"), string(runs.KindInvocation))),
			Title:      o.str(n, where, "title", "name", "label", "summary"),
			Capability: o.str(n, where, "capability_id", "capability", "action"),
			StartedAt:  o.str(n, where, "started_at", "created_at", "start_time", "startedAt", "createdAt", "started", "created", "time"),
			EndedAt:    o.str(n, where, "ended_at", "finished_at", "completed_at", "end_time", "endedAt", "finishedAt"),
			Error:      o.str(n, where, "error", "failure", "error_message"),
		}
		if r.ID == "" {
			n.addf("%s: no run_id; left out", where)
			continue
		}
		if seq := o.str(n, where, "last_sequence", "last_seq", "sequence", "event_count"); seq != "" {
			r.LastSequence, _ = strconv.ParseInt(seq, 10, 64)
		}
		sw := o.str(n, where, "state", "status", "lifecycle")
		if st, ok := runs.ParseState(sw); ok {
			r.State = st
		} else {
			r.State = runs.State(sw)
			n.addf("%s: state %q is not a lifecycle state the client knows; shown as written", where, sw)
		}
		r.Title = cmp.Or(r.Title, r.Capability, string(r.ID))
		out = append(out, r)
	}
	runs.SortNewestFirst(out)
	return out, nil
}

// DecodePage reads a page of GET /api/runs/{id}/events: {events} (or
// items, data), next (next_cursor, cursor), more (has_more, hasMore),
// gap and state (status). A page that does not say whether more follow
// is read as "more" while it brings events, so a replay asks again until
// a page comes back empty. Each event is read by DecodeEvent.
func DecodePage(data []byte, run runs.RunID, n *Notes) (runs.Page, error) {
	var p runs.Page
	o, ok := asObj(data)
	var list []json.RawMessage
	if ok {
		raw, k := o.pick("events", "items", "data", "results")
		if raw != nil {
			if k != "events" {
				n.addf("events page: %s read as events", k)
			}
			if err := json.Unmarshal(raw, &list); err != nil {
				return p, fmt.Errorf("the page's %s is not an array: %w", k, err)
			}
		}
	} else if err := json.Unmarshal(data, &list); err != nil {
		return p, fmt.Errorf("the events page is neither an object nor an array: %w", err)
	} else {
		n.addf("events page: a bare array, read as {events}")
		o = obj{}
	}
	p.Events = make([]runs.Event, 0, len(list))
	for i, raw := range list {
		e, err := DecodeEvent(raw, run, "", n, fmt.Sprintf("events[%d]", i))
		if err != nil {
			return runs.Page{}, fmt.Errorf("events[%d]: %w", i, err)
		}
		if e.RunID != run {
			return runs.Page{}, fmt.Errorf("the page holds an event of run %s", e.RunID)
		}
		p.Events = append(p.Events, e)
		p.Next = max(p.Next, e.Sequence)
	}
	if next := o.str(n, "events page", "next", "next_cursor", "cursor", "next_after"); next != "" {
		if v, err := strconv.ParseInt(next, 10, 64); err == nil {
			p.Next = max(p.Next, v)
		}
	}
	if raw, k := o.pick("more", "has_more", "hasMore"); raw != nil {
		if k != "more" {
			n.addf("events page: %s read as more", k)
		}
		json.Unmarshal(raw, &p.More)
	} else {
		n.addf("events page: no more member; the client asks again until a page is empty")
		p.More = len(p.Events) > 0
	}
	json.Unmarshal(o["gap"], &p.Gap)
	if sw := o.str(n, "events page", "state", "status", "run_state"); sw != "" {
		if st, ok := runs.ParseState(sw); ok {
			p.State = st
		}
	}
	return p, nil
}

// DecodeEvent reads one run event — from a page, or the data of an SSE
// event whose id and name are sseID and sseType — with event_id or id,
// sequence or seq (or, in a stream, a numeric SSE id), type, event or
// name (or the SSE event name), time, timestamp or ts, and data or
// payload. An event without a run id belongs to run. An event without a
// sequence cannot be resumed after and is refused.
func DecodeEvent(raw json.RawMessage, run runs.RunID, sseID string, n *Notes, where string) (runs.Event, error) {
	o, ok := asObj(raw)
	if !ok {
		return runs.Event{}, fmt.Errorf("not a JSON object")
	}
	e := runs.Event{
		ID:        runs.EventID(o.str(n, where, "event_id", "id", "eventId")),
		RunID:     runs.RunID(cmp.Or(o.str(n, where, "run_id", "runId"), string(run))),
		SessionID: runs.SessionID(o.str(n, where, "session_id", "sessionId")),
		Type:      o.str(n, where, "type", "event", "name", "kind"),
		Time:      o.str(n, where, "time", "timestamp", "ts", "created_at", "at"),
	}
	seq := o.str(n, where, "sequence", "seq", "sequence_number", "index")
	if seq == "" && sseID != "" {
		seq = sseID
		n.addf("%s: no sequence; the SSE id read as the sequence", where)
	}
	v, err := strconv.ParseInt(seq, 10, 64)
	if err != nil || v < 1 {
		return runs.Event{}, fmt.Errorf("no sequence (a positive integer) to resume after")
	}
	e.Sequence = v
	if e.ID == "" {
		e.ID = runs.EventID(fmt.Sprintf("%s#%d", e.RunID, e.Sequence))
		n.addf("%s: no event_id; the run and sequence stand in for it", where)
	}
	if d, k := o.pick("data", "payload", "body", "detail"); d != nil {
		if k != "data" {
			n.addf("%s: %s read as data", where, k)
		}
		e.Data = append(json.RawMessage(nil), d...)
	}
	return e, nil
}

// --- approvals ----------------------------------------------------------------

// DecodeApprovals reads the answer of GET /api/approvals: {approvals},
// {items} or a bare array, each with approval_id or id, state or status.
// An approval without an id is left out with a note.
func DecodeApprovals(data []byte, n *Notes) ([]capability.Approval, error) {
	var list []json.RawMessage
	if o, ok := asObj(data); ok {
		raw, k := o.pick("approvals", "items", "data")
		if raw == nil {
			return nil, fmt.Errorf("the approvals answer has no approvals member")
		}
		if k != "approvals" {
			n.addf("approvals: %s read as approvals", k)
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("the approvals answer's %s is not an array: %w", k, err)
		}
	} else if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("the approvals answer is neither an object nor an array: %w", err)
	}
	var out []capability.Approval
	for i, raw := range list {
		where := fmt.Sprintf("approvals[%d]", i)
		o, ok := asObj(raw)
		if !ok {
			n.addf("%s: not an object; left out", where)
			continue
		}
		a := capability.Approval{
			ID:           o.str(n, where, "approval_id", "id"),
			CapabilityID: o.str(n, where, "capability_id", "capability", "action"),
			Title:        o.str(n, where, "title", "name"),
			Target:       o.str(n, where, "target"),
			RunID:        runs.RunID(o.str(n, where, "run_id", "runId")),
			SessionID:    runs.SessionID(o.str(n, where, "session_id", "sessionId")),
			State:        word(o.str(n, where, "state", "status")),
			RequestedAt:  o.str(n, where, "requested_at", "created_at", "requestedAt"),
			DecidedAt:    o.str(n, where, "decided_at", "decidedAt"),
		}
		if a.ID == "" {
			n.addf("%s: no approval_id; left out", where)
			continue
		}
		if raw, k := o.pick("side_effect", "effect"); raw != nil {
			a.Effect = effect(obj{k: raw}, obj{}, nil, "")
		}
		if in, _ := o.pick("inputs", "input"); in != nil {
			a.Input = append(json.RawMessage(nil), in...)
		}
		if d, ok := o["decision"]; ok {
			json.Unmarshal(d, &a.Decision)
		}
		a.Title = cmp.Or(a.Title, a.CapabilityID, a.ID)
		out = append(out, a)
	}
	return out, nil
}
