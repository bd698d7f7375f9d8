package capability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/memory"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// Names of the workbench's own actions; their ids are
// ID(SourceWorkbench, name).
const (
	ActionVerify      = "verify"
	ActionExport      = "export"
	ActionReplay      = "replay"
	ActionCompare     = "compare"
	ActionImport      = "import"
	ActionSyncMemory  = "sync_memory"
	ActionDemonstrate = "demonstrate"
)

// Preconditions named in Capability.Missing.
const (
	NeedLibrary  = "the local library"
	NeedVerifier = "the verifier"
	NeedSkill    = "a stored skill"
	NeedKey      = "an OpenRouter key"
	NeedMemory   = "a memory service (graphonomous-mcp)"
)

// BuiltIn is the provider of the workbench's own actions — verify,
// export, replay, compare, import and sync to memory — each dispatching
// into the same package flow the UI and the CLI use. A nil dependency is
// a missing precondition: the actions that need it are listed as
// unavailable or degraded, with the reason.
type BuiltIn struct {
	// Store is the local library; nil when none is open.
	Store store.Store
	// Verifier re-derives proofs.
	Verifier *verify.Verifier
	// Model answers a replay's or a comparison's model calls; nil when no
	// OpenRouter key is set.
	Model workbench.Model
	// Memory stores traces; nil when no memory service is configured, and
	// MemoryProblem then says why (a *services.NotConfiguredError, an
	// unreachable server, …).
	Memory        memory.Memory
	MemoryProblem error
	// DestructiveMode reads the user's destructive-mode toggle for the
	// replayed edges' authorization; nil means off.
	DestructiveMode func() bool
	// Flows are the front-end's flows (workbench.New), which every action
	// that is a flow calls: the same bodies, authorizers, standing answer
	// to spec OQ-2 and models as the front-end's own pages. Required.
	Flows *workbench.Flows
}

func (w *BuiltIn) destructive() bool { return w.DestructiveMode != nil && w.DestructiveMode() }

// action is one workbench action's static description.
type action struct {
	name, title, desc string
	schema            string
	readOnly          bool
	capability        string
	hint              string
	needSkill         bool
	needModel         bool // a missing key degrades it
	needModelAlways   bool // a missing key makes it unavailable
	needMemory        bool
	local             bool // needs neither the library nor the verifier
}

const skillProps = `"skill_id":{"type":"string","minLength":1,"title":"Skill","description":"The stored skill's id."},
"version":{"type":"integer","minimum":1,"title":"Version","description":"The skill version; the newest when absent."}`

// workbenchActions describes the actions; the demonstration's schema
// lists the scenarios and worlds this build embeds.
func workbenchActions() []action {
	return []action{
		{name: ActionDemonstrate, title: "Demonstrate a task", capability: "ambient", hint: HintJSON, needModelAlways: true, local: true,
			desc:   "Have a model carry out a fixture scenario or a task of your own on a fresh simulator, with every action authorized; the recording is shown, not saved (crystallize it on /teach).",
			schema: demonstrateSchema()},
		{name: ActionVerify, title: "Verify skill", readOnly: true, capability: "ambient", hint: HintEvidence, needSkill: true,
			desc:   "Re-derive a stored skill's proof from its own evidence and compare it with the proof it claims.",
			schema: `{"type":"object","required":["skill_id"],"additionalProperties":false,"properties":{` + skillProps + `}}`},
		{name: ActionExport, title: "Export skill", readOnly: true, capability: "ambient", hint: HintEvidence, needSkill: true,
			desc: "Prepare a stored skill for download under a redaction profile: redact a copy, re-seal it and verify the exported bytes.",
			schema: `{"type":"object","required":["skill_id"],"additionalProperties":false,"properties":{` + skillProps + `,
"profile":{"enum":["transcript_pii","full","none"],"default":"transcript_pii","title":"Redaction profile"},
"secrets_confirmed":{"type":"boolean","default":false,"title":"Export secrets under \"none\"","description":"Required to export a bundle holding secrets without redaction."}}}`},
		{name: ActionReplay, title: "Replay skill", capability: "ambient", hint: HintEvidence, needSkill: true, needModel: true,
			desc: "Replay a stored skill on a fresh body of the kind it was taught on, verify the replay and save it as the skill's next version.",
			schema: `{"type":"object","required":["skill_id"],"additionalProperties":false,"properties":{` + skillProps + `,
"inputs":{"type":"object","title":"Inputs","description":"The skill's inputs; the taught ones when absent."},
"model":{"type":"string","title":"Model","description":"The OpenRouter model that re-chooses model-chosen parameters; the teaching model when absent."},
"accept_local_policy":{"type":"boolean","default":false,"title":"Use the local policy engine","description":"When delegatic-mcp cannot authorize a browser or host body, let the local policy engine decide this run; every authorization block names it."}}}`},
		{name: ActionCompare, title: "Compare models", capability: "ambient", hint: HintTable, needSkill: true, needModel: true,
			desc: "Replay a stored skill once per model and input set, verify each replay and set the results side by side; saves the version carrying every replay.",
			schema: `{"type":"object","required":["skill_id","models"],"additionalProperties":false,"properties":{` + skillProps + `,
"models":{"type":"array","items":{"type":"string","minLength":1},"minItems":2,"uniqueItems":true,"title":"Models"},
"inputs":{"title":"Inputs","description":"One input set, or a list of them; the taught inputs when absent.",
"oneOf":[{"type":"object","title":"One input set"},{"type":"array","items":{"type":"object"},"minItems":1,"title":"Several input sets"}]}}}`},
		{name: ActionImport, title: "Import bundle", capability: "ambient", hint: HintEvidence,
			desc: "Read a skill bundle file into the local library: strict parsing, schema validation and a re-derived proof.",
			schema: `{"type":"object","required":["filename","bundle"],"additionalProperties":false,"properties":{
"filename":{"type":"string","minLength":1,"title":"File name"},
"bundle":{"type":"string","minLength":2,"contentMediaType":"application/json","title":"Bundle file contents"}}}`},
		{name: ActionSyncMemory, title: "Sync skill to memory", capability: "&memory.episodic", hint: HintJSON, needSkill: true, needMemory: true,
			desc:   "Store a stored skill's interaction trace in the memory service (graphonomous-mcp), tagged with its bundle.",
			schema: `{"type":"object","required":["skill_id"],"additionalProperties":false,"properties":{` + skillProps + `}}`},
	}
}

func demonstrateSchema() string {
	enum := func(xs []string) string {
		b, _ := json.Marshal(xs)
		return string(b)
	}
	return `{"type":"object","required":["model"],"additionalProperties":false,"properties":{
"scenario":{"enum":` + enum(teach.ScenarioIDs()) + `,"title":"Fixture scenario"},
"task":{"type":"string","minLength":1,"title":"Task","description":"A task of your own, instead of a scenario."},
"world":{"enum":` + enum(fixtures.Worlds()) + `,"title":"Simulator world","description":"The world a task of your own starts in."},
"model":{"type":"string","minLength":1,"title":"Model","description":"The OpenRouter model that demonstrates."},
"max_steps":{"type":"integer","minimum":1,"maximum":100,"default":24,"title":"Most model turns"},
"accept_local_policy":{"type":"boolean","default":false,"title":"Use the local policy engine","description":"When delegatic-mcp cannot authorize the demonstration, let the local policy engine decide this run; every authorization block names it."}},
"oneOf":[{"required":["scenario"],"not":{"anyOf":[{"required":["task"]},{"required":["world"]}]}},
{"required":["task","world"],"not":{"required":["scenario"]}}]}`
}

// Actions lists the names of the workbench's own actions.
func Actions() []string {
	actions := workbenchActions()
	out := make([]string, len(actions))
	for i, a := range actions {
		out[i] = a.name
	}
	return out
}

// Source is SourceWorkbench.
func (w *BuiltIn) Source() string { return SourceWorkbench }

// List describes every action with its availability now.
func (w *BuiltIn) List(ctx context.Context) ([]Capability, error) {
	skills, skillsErr := -1, error(nil)
	if w.Store != nil {
		// Only the count matters: a page of one reads one record.
		list, err := w.Store.ListSkills(ctx, store.SkillQuery{Limit: 1})
		if err != nil {
			skillsErr = err
		} else {
			skills = list.Total
		}
	}
	actions := workbenchActions()
	out := make([]Capability, len(actions))
	for i, a := range actions {
		out[i] = w.describe(a, skills, skillsErr)
	}
	return out, nil
}

func (w *BuiltIn) describe(a action, skills int, skillsErr error) Capability {
	yes, no := true, false
	ann := body.Annotations{Title: a.title, ReadOnlyHint: &no}
	if a.readOnly {
		ann.ReadOnlyHint = &yes
	}
	c := Capability{
		ID: ID(SourceWorkbench, a.name), Title: a.title, Description: a.desc,
		Source: SourceWorkbench, Name: a.name, InputSchema: json.RawMessage(a.schema),
		Effect: policy.EffectOf(ann, true), Annotations: ann, Trusted: true,
		PolicyCapability: a.capability, RenderHint: a.hint, Availability: Available,
	}
	missing := func(av Availability, need, reason string) {
		if av == Unavailable || c.Availability == Available {
			c.Availability = av
		}
		c.Missing = append(c.Missing, need)
		c.Reasons = append(c.Reasons, reason)
	}
	switch {
	case a.local:
	case w.Store == nil:
		missing(Unavailable, NeedLibrary, "no local library is open")
	case skillsErr != nil:
		missing(Unavailable, NeedLibrary, "the local library cannot be read: "+skillsErr.Error())
	case a.needSkill && skills == 0:
		missing(Unavailable, NeedSkill, "the library holds no skill yet: teach or import one first")
	}
	if w.Verifier == nil && !a.local && a.name != ActionSyncMemory {
		missing(Unavailable, NeedVerifier, "the verifier is not loaded")
	}
	if a.needModelAlways && w.Model == nil {
		missing(Unavailable, NeedKey, "no OpenRouter key: a demonstration is a model acting")
	}
	if a.needModel && w.Model == nil {
		missing(Degraded, NeedKey, "no OpenRouter key: only skills whose parameters are all literal or bound to inputs can run, since they make no model call")
	}
	if a.needMemory && w.Memory == nil {
		reason := "graphonomous not configured: no memory service is set up"
		if w.MemoryProblem != nil {
			reason = w.MemoryProblem.Error()
		}
		missing(Unavailable, NeedMemory, reason)
	}
	return c
}

// Describe describes one action now.
func (w *BuiltIn) Describe(ctx context.Context, id string) (Capability, error) {
	return describe(ctx, w, id)
}

// skillInput is the input every skill action shares.
type skillInput struct {
	SkillID string `json:"skill_id"`
	Version int    `json:"version"`
}

// Invoke runs the action's flow. The input must already fit its schema
// (the Governor checks it); a flow's own refusal is an error.
func (w *BuiltIn) Invoke(ctx context.Context, id string, input json.RawMessage) (Result, error) {
	src, name, ok := SplitID(id)
	actions := workbenchActions()
	i := slices.IndexFunc(actions, func(a action) bool { return a.name == name })
	if !ok || src != SourceWorkbench || i < 0 {
		return Result{}, &NotFoundError{ID: id}
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if name == ActionDemonstrate {
		return w.demonstrate(ctx, input)
	}
	if w.Store == nil {
		return Result{}, errors.New("no local library is open")
	}
	if w.Verifier == nil && name != ActionSyncMemory {
		return Result{}, errors.New("the verifier is not loaded")
	}
	var (
		v   any
		err error
	)
	switch name {
	case ActionVerify:
		v, err = w.verify(ctx, input)
	case ActionExport:
		v, err = w.export(ctx, input)
	case ActionReplay:
		v, err = w.replay(ctx, input)
	case ActionCompare:
		v, err = w.compare(ctx, input)
	case ActionImport:
		v, err = w.importBundle(ctx, input)
	case ActionSyncMemory:
		v, err = w.sync(ctx, input)
	}
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", name, err)
	}
	var file *File
	if e, ok := v.(exported); ok {
		v, file = e.summary, &e.file
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return Result{}, fmt.Errorf("%s: result: %w", name, err)
	}
	return Result{Value: raw, File: file}, nil
}

func decode(input json.RawMessage, v any) error {
	if err := json.Unmarshal(input, v); err != nil {
		return fmt.Errorf("input: %w", err)
	}
	return nil
}

// bundle loads a stored skill's bundle: the version asked for, or the
// newest.
func (w *BuiltIn) bundle(ctx context.Context, in skillInput) (*skill.Bundle, store.StoredBundle, error) {
	list, err := w.Store.Bundles(ctx, in.SkillID)
	if err != nil {
		return nil, store.StoredBundle{}, err
	}
	if len(list) == 0 {
		return nil, store.StoredBundle{}, fmt.Errorf("skill %s: no stored bundle", in.SkillID)
	}
	sb := list[len(list)-1]
	if in.Version != 0 {
		j := slices.IndexFunc(list, func(b store.StoredBundle) bool { return b.SkillVersion == in.Version })
		if j < 0 {
			return nil, store.StoredBundle{}, fmt.Errorf("skill %s has no version %d", in.SkillID, in.Version)
		}
		sb = list[j]
	}
	b, err := sb.Decode()
	if err != nil {
		return nil, store.StoredBundle{}, fmt.Errorf("skill %s v%d: %w", in.SkillID, sb.SkillVersion, err)
	}
	return b, sb, nil
}

func (w *BuiltIn) verify(ctx context.Context, input json.RawMessage) (any, error) {
	var in skillInput
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	// The flow the skill page reads a version with: verified, and its
	// signer checked against the person's trusted signers.
	l, err := w.Flows.Load(ctx, in.SkillID, in.Version)
	if err != nil {
		return nil, err
	}
	return l.Report, nil
}

func (w *BuiltIn) export(ctx context.Context, input json.RawMessage) (any, error) {
	var in struct {
		skillInput
		Profile          string `json:"profile"`
		SecretsConfirmed bool   `json:"secrets_confirmed"`
	}
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	b, _, err := w.bundle(ctx, in.skillInput)
	if err != nil {
		return nil, err
	}
	if in.Profile == "" {
		adv, err := workbench.AdviseExport(b)
		if err != nil {
			return nil, err
		}
		in.Profile = adv.Profile
	}
	f, err := w.Flows.Export(ctx, b, in.Profile, in.SecretsConfirmed)
	if err != nil {
		return nil, err
	}
	// The run records what was prepared; the bytes go with the result
	// as its file, which the backend hands to the UI to download.
	return exported{summary: map[string]any{
		"filename": f.Name, "profile": f.Profile, "content_hash": f.ContentHash,
		"bytes": len(f.Data), "redaction": f.Redaction, "verdict": f.Report.Verdict,
		"re_verified": f.Report.Derived,
	}, file: File{Name: f.Name, MediaType: "application/json", Data: f.Data}}, nil
}

// exported is the export action's answer: what the run records, and the
// file it made.
type exported struct {
	summary map[string]any
	file    File
}

// replay runs the replay flow on a stored skill and saves the new version.
// delegatic-mcp unavailable for the skill's body is an error saying so;
// the user answers it by asking again with accept_local_policy.
func (w *BuiltIn) replay(ctx context.Context, input json.RawMessage) (any, error) {
	var in struct {
		skillInput
		Inputs      map[string]any `json:"inputs"`
		Model       string         `json:"model"`
		AcceptLocal bool           `json:"accept_local_policy"`
	}
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	b, _, err := w.bundle(ctx, in.skillInput)
	if err != nil {
		return nil, err
	}
	f := w.Flows
	r, err := f.Replay(ctx, workbench.ReplayRequest{Bundle: b, Input: in.Inputs, Model: in.Model,
		Destructive: w.destructive(), AcceptLocalPolicy: in.AcceptLocal,
		Progress: func(e skill.ReplayEdge) { ReportProgress(ctx, map[string]any{"model": in.Model, "edge": e}) },
	})
	var ae *workbench.AuthorizerUnavailableError
	if errors.As(err, &ae) {
		return nil, fmt.Errorf("%w; nothing ran: to replay under the local policy engine (%s), ask again with accept_local_policy, or accept it for every run of this tab where the page asks", err, ae.Local)
	}
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, fmt.Errorf("nothing saved: %w", r.Err)
	}
	if _, err := f.SaveReplay(ctx, r); err != nil {
		return nil, err
	}
	out := map[string]any{
		"outcome": words.Status(r.Record.Report.Status, r.Record.Report.HaltedAtEdge),
		"replay":  r.Record.Report, "saved_version": r.Bundle.SkillVersion,
		"content_hash": r.Bundle.ContentHash, "verdict": r.Report.Verdict,
		"re_verified": r.Report.Derived, "model_calls": r.ModelCalls, "authorizer": r.Authority,
	}
	// In words, as the replay page says it: each step's call and what the
	// body answered, and what differed where the state diverged.
	rows := workbench.EdgeRows(b, r.Record.Edges, r.Record.Report.SurpriseSignals)
	var steps []map[string]any
	for _, row := range rows {
		if !row.Replayed {
			continue
		}
		answered, _ := words.Clip(row.Saw, 30, 2400)
		steps = append(steps, map[string]any{"step": row.Index, "tool": row.Tool, "arguments": row.ReplayedArgs,
			"verdict": words.Match(row.Match), "answered": answered})
		if d := row.Difference; d != nil {
			lines := make([]string, len(d.Lines))
			for i, l := range d.Lines {
				lines[i] = string(l.Op) + " " + l.Text
			}
			out["differed"] = map[string]any{"edge": row.Index, "tolerance": d.Tolerance, "lines": lines, "observed": d.Observed}
		}
	}
	out["steps"] = steps
	return out, nil
}

func (w *BuiltIn) compare(ctx context.Context, input json.RawMessage) (any, error) {
	var in struct {
		skillInput
		Models []string        `json:"models"`
		Inputs json.RawMessage `json:"inputs"`
	}
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	sets, err := inputSets(in.Inputs)
	if err != nil {
		return nil, err
	}
	b, _, err := w.bundle(ctx, in.skillInput)
	if err != nil {
		return nil, err
	}
	c, err := w.Flows.Compare(ctx, workbench.CompareRequest{
		Bundle: b, Models: in.Models, Sets: sets, Save: true, Destructive: w.destructive(),
		Progress: func(p workbench.CompareProgress) {
			if p.Edge != nil {
				ReportProgress(ctx, map[string]any{"model": p.Model, "input_set": p.Set + 1, "edge": *p.Edge})
			}
		},
	})
	if err != nil {
		return nil, err
	}
	k := c.Kept
	rows := make([]map[string]any, 0, len(k.Cells))
	for _, cell := range k.Cells {
		row := map[string]any{"model": cell.Model, "input_set": cell.Input + 1, "verdict": cell.Verdict,
			"model_calls": cell.ModelCalls, "latency_ms": cell.LatencyMS}
		if cell.CostKnown {
			row["cost_usd"] = cell.CostUSD
		}
		if cell.Record != nil {
			row["status"], row["fidelity"], row["fidelity_level"] = cell.Status, cell.Fidelity, cell.FidelityLevel
		}
		if cell.Error != "" {
			row["error"] = cell.Error
		}
		rows = append(rows, row)
	}
	exercised := false
	var summary []string
	for j, set := range c.BySet {
		exercised = exercised || set.ModelsExercised
		for _, line := range set.Summary() {
			if len(c.BySet) > 1 {
				line = fmt.Sprintf("Input set %d: %s", j+1, line)
			}
			summary = append(summary, line)
		}
	}
	out := map[string]any{"rows": rows, "summary": summary, "models_exercised": exercised,
		"input_sets": c.Inputs, "saved_version": k.SavedVersion}
	if c.KeepErr != nil {
		out["kept"] = c.KeepErr.Error()
	}
	return out, nil
}

// inputSets reads the compare action's inputs: absent, one set (an
// object, as before sets were offered) or a list of sets.
func inputSets(raw json.RawMessage) ([]workbench.InputSet, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one map[string]any
	if err := json.Unmarshal(raw, &one); err == nil {
		return []workbench.InputSet{{Input: one}}, nil
	}
	var many []map[string]any
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("inputs: an object of input values, or a list of them: %w", err)
	}
	sets := make([]workbench.InputSet, len(many))
	for i, m := range many {
		sets[i] = workbench.InputSet{Input: m}
	}
	return sets, nil
}

func (w *BuiltIn) importBundle(ctx context.Context, input json.RawMessage) (any, error) {
	var in struct {
		Filename string `json:"filename"`
		Bundle   string `json:"bundle"`
	}
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	r, err := w.Flows.Import(ctx, in.Filename, []byte(in.Bundle))
	if err != nil {
		return nil, err
	}
	out := map[string]any{"filename": r.Name, "status": r.Status}
	if len(r.Problems) > 0 {
		ps := make([]string, len(r.Problems))
		for i, p := range r.Problems {
			ps[i] = p.String()
		}
		out["problems"] = ps
	}
	if r.Report != nil {
		out["verdict"], out["re_verified"], out["skill_id"] = r.Report.Verdict, r.Report.Derived, r.Report.SkillID
	}
	if c := r.Collision; c != nil {
		// Another profile's copy of a stored version: nothing was
		// written, and the choice is the /import page's to offer.
		out["collision"] = map[string]any{"differences": c.Differences, "suggested": c.Suggested,
			"stored_content_hash": c.Stored.ContentHash, "version": c.Version}
	}
	return out, nil
}

func (w *BuiltIn) sync(ctx context.Context, input json.RawMessage) (any, error) {
	if w.Memory == nil {
		if w.MemoryProblem != nil {
			return nil, w.MemoryProblem
		}
		return nil, errors.New("graphonomous not configured: no memory service is set up")
	}
	var in skillInput
	if err := decode(input, &in); err != nil {
		return nil, err
	}
	b, _, err := w.bundle(ctx, in)
	if err != nil {
		return nil, err
	}
	return w.Memory.Sync(ctx, b)
}

func (w *BuiltIn) demonstrate(ctx context.Context, input json.RawMessage) (Result, error) {
	var in struct {
		Scenario    string `json:"scenario"`
		Task        string `json:"task"`
		World       string `json:"world"`
		Model       string `json:"model"`
		MaxSteps    int    `json:"max_steps"`
		AcceptLocal bool   `json:"accept_local_policy"`
	}
	if err := decode(input, &in); err != nil {
		return Result{}, err
	}
	if w.Model == nil {
		return Result{}, errors.New("no OpenRouter key: a demonstration is a model acting")
	}
	plan, err := workbench.PlanTeach(ctx, workbench.TeachRequest{Scenario: in.Scenario, Task: in.Task, World: in.World, Model: in.Model})
	if err != nil {
		return Result{}, err
	}
	taught, err := w.Flows.Teach(ctx, plan, workbench.TeachOptions{
		Model: w.Model, ModelID: in.Model, DestructiveMode: w.destructive(),
		MaxSteps: in.MaxSteps, AcceptLocalPolicy: in.AcceptLocal,
		Progress: func(p workbench.TeachStep) {
			ReportProgress(ctx, map[string]any{"step": p.Step, "phase": p.Phase, "detail": p.Detail})
		},
	})
	var ae *workbench.AuthorizerUnavailableError
	if errors.As(err, &ae) {
		return Result{}, fmt.Errorf("%w; nothing ran: to demonstrate under the local policy engine (%s), ask again with accept_local_policy, or accept it for every run of this tab where the page asks", err, ae.Local)
	}
	if taught == nil {
		return Result{}, err
	}
	res := taught.Result
	out := map[string]any{
		"task": plan.Task.Description, "world": plan.WorldName, "model": in.Model,
		"stopped": res.Stopped, "answer": res.Answer, "edges": len(res.Trace.Edges),
		"outcome": res.Trace.Outcome, "authorizer": taught.Authority,
	}
	// The action stores nothing; the draft's name says what a save on
	// /teach would call the skill, and why there would be none.
	if err != nil {
		out["draft_error"] = err.Error()
	} else {
		out["draft_name"] = taught.Draft.Name
	}
	if res.CostKnown {
		out["cost_usd"] = res.CostUSD
	}
	failed := res.Err != nil
	if failed {
		out["error"] = res.Err.Error()
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return Result{}, fmt.Errorf("demonstrate: result: %w", err)
	}
	return Result{Value: raw, IsError: failed, Text: res.Answer}, nil
}
