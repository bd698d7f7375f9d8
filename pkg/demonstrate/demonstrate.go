// Package demonstrate records a task demonstrated by an LLM agent acting
// through a body (spec §3 step 1).
//
// The loop is perceive → ask the model (the body's tools offered as
// functions) → authorize → act → record. Every action the model asks for
// becomes one trace edge carrying the state hash and shape before and
// after, the authorization block that allowed or refused it, the concrete
// tool call, its latency and its provenance — a refused action is recorded
// too, never performed. The run stops on a final answer, at the step
// limit, or when ctx is cancelled, and always returns what it recorded.
//
// What the model says that is not a usable action (no tool call, a tool
// the body does not have, arguments that are not JSON or do not fit the
// tool's schema) is answered to the model as an error, recorded in the
// transcript and the events, and never becomes an edge: nothing happened
// on the body. A reply that cannot be read at all (garbage, truncated,
// over the size cap) is told to the model the same way, but only
// openrouter.UnreadableRetries times in a row: the next one stops the run
// with an *openrouter.UnreadableError.
package demonstrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"workbench/pkg/body"
	"workbench/pkg/canonjson"
	"workbench/pkg/openrouter"
	"workbench/pkg/policy"
	"workbench/pkg/pulse"
	"workbench/pkg/skill"
)

// Model is the chat model the agent thinks with; *openrouter.Client is one.
type Model interface {
	Chat(ctx context.Context, req openrouter.Request) (*openrouter.Response, error)
}

// Task is what the user asked for.
type Task struct {
	ID          string
	Description string
	BodyChoice  body.Kind
	Inputs      map[string]any
	ScenarioID  string // a fixture scenario id, or "" for freeform
}

// Options configure a demonstration.
type Options struct {
	Model      Model
	ModelID    string // OpenRouter model id, e.g. "openai/gpt-4o"
	Body       body.Body
	Authorizer policy.Authorizer
	// Declared are the capabilities the task is granted; an action on any
	// other is refused by policy (spec §7.6).
	Declared []string
	// Offered are the capabilities whose tools the model is shown; nil
	// means Declared. Tools of ambient capability are always shown. A
	// fixture that tests the policy's refusal offers more than it
	// declares (skill.authority_denied); a person's task never does: the
	// workbench does not offer what the skill may not use.
	Offered         []string
	DestructiveMode bool
	// TrustedServer says whether the body's tool annotations are believed.
	TrustedServer bool
	MaxSteps      int // model turns; 0 means DefaultMaxSteps
	Now           func() time.Time
	NewID         func() string
	// NewSpanID mints span ids (16 hex); random when nil.
	NewSpanID func() string
	// Progress, when set, is told of each step as it happens.
	Progress func(Progress)
	// Stop, when closed, ends the recording at the next step boundary
	// (the user's "Stop recording"): an action already under way
	// finishes and is recorded; a tool call the model asks for after the
	// stop is not made. Unlike cancelling ctx, what was recorded is kept
	// as a finished demonstration.
	Stop <-chan struct{}
}

// DefaultMaxSteps bounds a demonstration that never finishes.
const DefaultMaxSteps = 24

// Progress is one step of a running demonstration, for a UI to follow.
type Progress struct {
	Step    int
	Phase   StepPhase
	Detail  string
	CostUSD float64 // running total
	Edge    *skill.Edge
}

// StepPhase is what a demonstration step is doing when it reports
// Progress.
type StepPhase string

// The phases a step reports, in the order a step goes through them.
const (
	PhaseModel     StepPhase = "model"     // asking the model, or what its reply was not
	PhasePerceive  StepPhase = "perceive"  // observing the body before acting
	PhaseAuthorize StepPhase = "authorize" // asking the authorizer
	PhaseAct       StepPhase = "act"       // the action ran, was refused or failed; Edge is set
	PhaseAnswer    StepPhase = "answer"    // the model gave its final answer
	PhaseStopped   StepPhase = "stopped"   // the demonstration ended; Detail is why
)

// Stop reasons.
const (
	StopAnswer    = "answer"     // the model gave a final answer
	StopStepLimit = "step_limit" // MaxSteps model turns
	StopCancelled = "cancelled"  // ctx ended
	StopError     = "error"      // the model or the body failed
	StopUser      = "user"       // the user stopped the recording (Options.Stop)
)

// Result is everything a demonstration recorded.
type Result struct {
	Trace      skill.Trace
	Transcript []skill.Turn
	ToolCalls  []skill.ToolCallHash
	Recorder   *pulse.Recorder
	Answer     string
	CostUSD    float64
	CostKnown  bool // every model reply reported its cost
	Stopped    string
	Err        error // why the run stopped, when Stopped is StopError or StopCancelled
}

// systemPrompt tells the model how to act. It asks for one action at a
// time so every state change is observed and recorded on its own.
const systemPrompt = `You carry out a task by calling the tools you are given, one tool call at a time.
After each call you receive its result. When the task is done, answer with a short final message and no tool call.
Never invent results: if a tool reports an error or an action is refused, say so or try another way.`

// Run demonstrates task. It returns an error only when it cannot start
// (missing options, a body that cannot list its tools or report its
// state); everything after that is in the Result.
func Run(ctx context.Context, task Task, opt Options) (*Result, error) {
	if opt.Model == nil || opt.Body == nil || opt.Authorizer == nil || opt.ModelID == "" {
		return nil, errors.New("demonstrate: Model, ModelID, Body and Authorizer are required")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.NewID == nil {
		opt.NewID = skill.NewID
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = DefaultMaxSteps
	}
	all, err := opt.Body.Tools(ctx)
	if err != nil {
		return nil, fmt.Errorf("demonstrate: list the body's tools: %w", err)
	}
	offered := opt.Offered
	if offered == nil {
		offered = opt.Declared
	}
	tools := Offer(all, offered)
	compiled, err := compileSchemas(tools)
	if err != nil {
		return nil, err
	}
	traceID := opt.NewID()
	popts := []pulse.Option{pulse.WithClock(opt.Now), pulse.WithIDs(opt.NewID)}
	if opt.NewSpanID != nil {
		popts = append(popts, pulse.WithSpanIDs(opt.NewSpanID))
	}
	rec, err := pulse.NewRecorder(traceID, opt.Body.Server(), popts...)
	if err != nil {
		return nil, fmt.Errorf("demonstrate: %w", err)
	}
	d := &demo{task: task, opt: opt, tools: tools, schemas: compiled, rec: rec, costKnown: true}
	start := opt.Now()
	d.res.Trace = skill.Trace{
		TraceID: traceID, BodySubtype: string(opt.Body.Kind()), Provider: "openrouter",
		AgentID: "openrouter:" + opt.ModelID, StartedAt: skill.Timestamp(start),
		Environment: skill.Environment{OSFamily: string(opt.Body.Kind()), BrowserFamily: string(opt.Body.Kind())},
		Goal:        task.Description, Edges: []skill.Edge{},
	}
	if err := d.run(ctx); err != nil {
		return nil, err
	}
	return &d.res, nil
}

type demo struct {
	task      Task
	opt       Options
	tools     []body.Tool
	schemas   map[string]*jsonschema.Schema
	rec       *pulse.Recorder
	res       Result
	messages  []openrouter.Message
	costKnown bool
}

func (d *demo) progress(step int, phase StepPhase, detail string, e *skill.Edge) {
	if d.opt.Progress != nil {
		d.opt.Progress(Progress{Step: step, Phase: phase, Detail: detail, CostUSD: d.res.CostUSD, Edge: e})
	}
}

func (d *demo) turn(role, content string) {
	c := content
	d.res.Transcript = append(d.res.Transcript, skill.Turn{Turn: len(d.res.Transcript), Role: role, Content: &c})
}

func (d *demo) run(ctx context.Context) error {
	retrieve := d.rec.StartPhase(pulse.PhaseRetrieve)
	if _, err := d.rec.TopologyContext(retrieve, pulse.Topology{TaskID: d.task.ID}); err != nil {
		return fmt.Errorf("demonstrate: %w", err)
	}
	d.rec.StartPhase(pulse.PhaseRoute)
	act := d.rec.StartPhase(pulse.PhaseAct)

	user := d.task.Description
	if len(d.task.Inputs) > 0 {
		in, _ := json.Marshal(d.task.Inputs)
		user += "\n\nInputs: " + string(in)
	}
	d.messages = []openrouter.Message{
		{Role: openrouter.RoleSystem, Content: systemPrompt},
		{Role: openrouter.RoleUser, Content: user},
	}
	d.turn("system", systemPrompt)
	d.turn("user", user)
	fns := make([]openrouter.Tool, len(d.tools))
	for i, t := range d.tools {
		fns[i] = openrouter.FunctionTool(t.Name, t.Description, t.InputSchema)
	}
	parallel := false
	unreadable := 0 // unreadable replies in a row

	d.res.Stopped = StopStepLimit
	for step := 0; step < d.opt.MaxSteps; step++ {
		if err := ctx.Err(); err != nil {
			d.res.Stopped, d.res.Err = StopCancelled, err
			break
		}
		if d.stopped() {
			d.res.Stopped = StopUser
			break
		}
		d.progress(step, PhaseModel, "asking "+d.opt.ModelID, nil)
		resp, err := d.opt.Model.Chat(ctx, openrouter.Request{
			Model: d.opt.ModelID, Messages: d.messages, Tools: fns, ParallelToolCalls: &parallel,
		})
		var malformed *openrouter.MalformedError
		if errors.As(err, &malformed) {
			// The reply could not be read as a chat completion (for
			// example tool arguments that are not JSON). Nothing happened
			// on the body; say so in the transcript, tell the model, and
			// let it try again, at most UnreadableRetries times in a row.
			if malformed.Usage != nil && malformed.Usage.Cost != nil {
				d.res.CostUSD += *malformed.Usage.Cost
			}
			d.turn("assistant", "[unreadable reply: "+malformed.Reason+" at "+malformed.Where+"]")
			if unreadable++; unreadable > openrouter.UnreadableRetries {
				d.res.Stopped = StopError
				d.res.Err = fmt.Errorf("model: %w", &openrouter.UnreadableError{Replies: unreadable, Last: malformed})
				d.progress(step, PhaseModel, "unreadable reply: "+malformed.Reason+"; giving up", nil)
				break
			}
			note := fmt.Sprintf("error: your last reply could not be read (%s at %s); call one tool with a JSON object of arguments, or answer", malformed.Reason, malformed.Where)
			d.turn("user", note)
			d.messages = append(d.messages, openrouter.Message{Role: openrouter.RoleUser, Content: note})
			d.progress(step, PhaseModel, "unreadable reply: "+malformed.Reason, nil)
			continue
		}
		unreadable = 0
		if err != nil {
			if ctx.Err() != nil {
				d.res.Stopped, d.res.Err = StopCancelled, ctx.Err()
			} else {
				d.res.Stopped, d.res.Err = StopError, fmt.Errorf("model: %w", err)
			}
			break
		}
		if c, ok := resp.Cost(); ok {
			d.res.CostUSD += c
		} else {
			d.costKnown = false
		}
		msg := resp.Message()
		d.messages = append(d.messages, msg)
		if len(msg.ToolCalls) == 0 {
			text := msg.Content
			if text == "" && msg.Refusal != "" {
				text = msg.Refusal
			}
			d.turn("assistant", text)
			d.res.Answer, d.res.Stopped = text, StopAnswer
			d.progress(step, PhaseAnswer, text, nil)
			break
		}
		if msg.Content != "" {
			d.turn("assistant", msg.Content)
		}
		if d.stopped() {
			names := make([]string, len(msg.ToolCalls))
			for i, c := range msg.ToolCalls {
				names[i] = c.Function.Name
			}
			d.turn("assistant", "[recording stopped by the user; not called: "+strings.Join(names, ", ")+"]")
			d.res.Stopped = StopUser
			break
		}
		stop := false
		for _, call := range msg.ToolCalls {
			if err := d.call(ctx, act, step, call); err != nil {
				d.res.Stopped, d.res.Err = StopError, err
				stop = true
				break
			}
		}
		if stop {
			break
		}
	}
	d.res.Trace.EndedAt = skill.Timestamp(d.opt.Now())
	d.res.Trace.Outcome = outcome(d.res)
	d.res.CostKnown = d.costKnown
	status := map[string]string{"success": pulse.OutcomeSuccess, "partial": pulse.OutcomePartial}[d.res.Trace.Outcome]
	if status == "" {
		status = pulse.OutcomeFailure
	}
	ids := make([]string, 0, len(d.res.Trace.Edges))
	for _, e := range d.res.Trace.Edges {
		ids = append(ids, e.EdgeID)
	}
	if _, err := d.rec.OutcomeSignal(act, pulse.Outcome{ActionID: d.res.Trace.TraceID, Status: status, CausalParentIDs: ids}); err != nil {
		return fmt.Errorf("demonstrate: %w", err)
	}
	d.res.Recorder = d.rec
	d.progress(len(d.res.Trace.Edges), PhaseStopped, d.res.Stopped, nil)
	return nil
}

// stopped reports whether the user has stopped the recording.
func (d *demo) stopped() bool {
	select {
	case <-d.opt.Stop:
		return true
	default:
		return false
	}
}

func outcome(r Result) string {
	switch {
	case r.Stopped == StopUser:
		return "partial"
	case r.Stopped == StopCancelled:
		return "aborted"
	case r.Stopped == StopError:
		return "failure"
	case r.Stopped == StopStepLimit:
		return "partial"
	}
	for _, e := range r.Trace.Edges {
		if e.OutcomeStatus != skill.OutcomeOK {
			return "partial"
		}
	}
	return "success"
}

// reply answers a tool call to the model and records the answer.
func (d *demo) reply(call openrouter.ToolCall, text string) {
	d.messages = append(d.messages, openrouter.Message{Role: openrouter.RoleTool, ToolCallID: call.ID, Content: text})
	d.turn("tool", text)
}

// call handles one tool call the model made. An error stops the run: the
// body could not be observed or did not answer.
func (d *demo) call(ctx context.Context, act *pulse.Span, step int, call openrouter.ToolCall) error {
	name := call.Function.Name
	d.turn("assistant", fmt.Sprintf("calls %s %s", name, call.Function.Arguments))
	tool, ok := findTool(d.tools, name)
	if !ok {
		d.reply(call, fmt.Sprintf("error: there is no tool named %q; the tools are %s", name, toolNames(d.tools)))
		d.progress(step, PhaseModel, "asked for an unknown tool "+name, nil)
		return nil
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil || args == nil {
		d.reply(call, fmt.Sprintf("error: the arguments of %s are not a JSON object: %v", name, errOr(err, "null")))
		d.progress(step, PhaseModel, "gave arguments that are not a JSON object", nil)
		return nil
	}
	if err := d.validate(name, call.Function.Arguments); err != nil {
		d.reply(call, fmt.Sprintf("error: the arguments of %s do not fit its input schema: %v", name, err))
		d.progress(step, PhaseModel, "gave arguments that do not fit "+name, nil)
		return nil
	}

	d.progress(step, PhasePerceive, "observing the body", nil)
	before, beforeShape, err := observe(ctx, d.opt.Body)
	if err != nil {
		return fmt.Errorf("observe the body: %w", err)
	}
	index := len(d.res.Trace.Edges)
	e := skill.Edge{
		EdgeID: d.opt.NewID(), Index: index, StateBefore: before, ShapeBefore: beforeShape,
		TypedAction: skill.TypedAction{Type: name, Target: target(args), SemanticLocator: locator(args),
			Params: args, Preconditions: []string{}},
		Tool:         skill.ToolCall{Server: d.opt.Body.Server(), Name: name, Arguments: args},
		Capability:   tool.Capability,
		ParamSources: allFromModel(args),
	}
	d.progress(step, PhaseAuthorize, name, nil)
	auth, err := d.opt.Authorizer.Authorize(ctx, policy.Request{
		Capability: tool.Capability, ActionType: actionType(d.opt.Body.Kind(), name), Tool: name,
		Annotations: tool.Annotations, TrustedServer: d.opt.TrustedServer,
		Declared: d.opt.Declared, DestructiveMode: d.opt.DestructiveMode,
		AgentID: d.res.Trace.AgentID,
	})
	if err != nil {
		return fmt.Errorf("authorize %s: %w", name, err)
	}
	e.Authorization = &auth
	started := d.opt.Now()
	e.Provenance = skill.Provenance{Timestamp: skill.Timestamp(started), Capability: tool.Capability, Operation: name}
	span := act.ToolCall(d.opt.Body.Server(), name, index)
	defer span.End()

	if auth.Decision != skill.DecisionAllow {
		e.StateAfter, e.ShapeAfter = before, beforeShape
		e.OutcomeStatus = skill.OutcomeDenied
		e.ObservedOutcome = map[string]any{"refused": auth.Reason}
		d.record(e, span, map[string]any{"refused": auth.Reason})
		d.reply(call, "refused by policy: "+auth.Reason)
		d.progress(step, PhaseAct, "refused: "+auth.Reason, &e)
		return nil
	}

	res, err := d.opt.Body.Call(ctx, name, args)
	e.LatencyMS = float64(d.opt.Now().Sub(started).Microseconds()) / 1000
	if err != nil {
		// The call could not be made or answered (a server gone, a
		// timeout). The run stops, but the trace keeps the attempt and
		// why it failed, and the state after it if the body can still
		// be observed.
		failed := map[string]any{"call_failed": err.Error()}
		e.OutcomeStatus = skill.OutcomeError
		e.ObservedOutcome = failed
		if after, afterShape, oerr := observe(ctx, d.opt.Body); oerr == nil {
			e.StateAfter, e.ShapeAfter = after, afterShape
		}
		d.record(e, span, failed)
		d.progress(step, PhaseAct, "call failed: "+err.Error(), &e)
		return fmt.Errorf("call %s: %w", name, err)
	}
	after, afterShape, err := observe(ctx, d.opt.Body)
	if err != nil {
		return fmt.Errorf("observe the body: %w", err)
	}
	e.StateAfter, e.ShapeAfter = after, afterShape
	e.OutcomeStatus = skill.OutcomeOK
	if res.IsError {
		e.OutcomeStatus = skill.OutcomeError
	}
	e.ObservedOutcome = res.Observed()
	d.record(e, span, res)
	text := res.Text
	if res.IsError {
		text = "error: " + text
	}
	d.reply(call, text)
	d.progress(step, PhaseAct, name, &e)
	return nil
}

// record appends the edge and the hashes of its tool call.
func (d *demo) record(e skill.Edge, span *pulse.Span, response any) {
	d.res.Trace.Edges = append(d.res.Trace.Edges, e)
	reqHash, err1 := skill.HashValue(e.Tool)
	respHash, err2 := skill.HashValue(response)
	if err1 != nil || err2 != nil {
		return // both are plain JSON values; encoding cannot fail
	}
	idx := e.Index
	d.res.ToolCalls = append(d.res.ToolCalls, skill.ToolCallHash{
		SpanID: span.ID(), Server: serverClass(e.Capability), Tool: e.Tool.Name,
		RequestHash: reqHash, ResponseHash: respHash, EdgeIndex: &idx, Body: string(d.opt.Body.Kind()),
	})
}

// serverClass names the [&] server a tool call went to, or stands in for,
// in the vocabulary evidence.tool_calls uses.
func serverClass(capability string) string {
	if capability == skill.CapabilityOS {
		return "body-os"
	}
	return "body-browser"
}

func observe(ctx context.Context, b body.Body) (hash, shape string, err error) {
	if h, ok := b.(body.Hasher); ok {
		return h.StateHashes(ctx)
	}
	st, err := b.State(ctx)
	if err != nil {
		return "", "", err
	}
	return skill.StateHashes(st)
}

// Offer returns the tools of tools a model may be shown for a task that
// may use the capabilities caps: those of a capability in caps, and the
// ambient ones, in the body's order.
func Offer(tools []body.Tool, caps []string) []body.Tool {
	var out []body.Tool
	for _, t := range tools {
		if t.Capability == skill.CapabilityAmbient || slices.Contains(caps, t.Capability) {
			out = append(out, t)
		}
	}
	return out
}

func compileSchemas(tools []body.Tool) (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	out := make(map[string]*jsonschema.Schema, len(tools))
	for _, t := range tools {
		if len(t.InputSchema) == 0 {
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(t.InputSchema)))
		if err != nil {
			return nil, fmt.Errorf("demonstrate: tool %s: input schema: %w", t.Name, err)
		}
		url := "tool:///" + t.Name
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("demonstrate: tool %s: input schema: %w", t.Name, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("demonstrate: tool %s: input schema: %w", t.Name, err)
		}
		out[t.Name] = s
	}
	return out, nil
}

func (d *demo) validate(tool, args string) error {
	s, ok := d.schemas[tool]
	if !ok {
		return nil
	}
	doc, err := canonjson.Parse([]byte(args), canonjson.DefaultLimits())
	if err != nil {
		return err
	}
	return s.Validate(doc.Generic())
}

func findTool(tools []body.Tool, name string) (body.Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return body.Tool{}, false
}

func toolNames(tools []body.Tool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// actionType names an action body kind first, as policies match it.
func actionType(kind body.Kind, tool string) string {
	prefix := map[body.Kind]string{body.KindBrowser: "browser", body.KindHost: "os", body.KindSimulator: "sim"}[kind]
	return prefix + "." + tool
}

// target picks the argument that names what the action acts on.
func target(args map[string]any) string {
	for _, k := range []string{"url", "target", "ref", "element", "name", "path", "field", "link", "button", "command"} {
		if s, ok := args[k].(string); ok {
			return s
		}
	}
	return ""
}

func locator(args map[string]any) *skill.SemanticLocator {
	role, _ := args["role"].(string)
	name, _ := args["name"].(string)
	if role == "" && name == "" {
		return nil
	}
	return &skill.SemanticLocator{Role: role, Name: name}
}

// allFromModel marks every parameter as chosen by the model: during a
// demonstration the model chooses them all. Crystallizing decides which
// become inputs or literals.
func allFromModel(args map[string]any) map[string]string {
	m := make(map[string]string, len(args))
	for k := range args {
		m[k] = skill.SourceLLM
	}
	return m
}
