package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"workbench/pkg/body"
	"workbench/pkg/openrouter"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
)

// PolicyAuthorizer re-authorizes replayed actions with a policy.Authorizer
// under the skill's declared capabilities, exactly as the demonstration
// was authorized.
type PolicyAuthorizer struct {
	Policy          policy.Authorizer
	Declared        []string // the manifest's capabilities_required
	BodyKind        body.Kind
	TrustedServer   bool
	DestructiveMode bool
	AgentID         string
}

// Authorize implements Authorizer.
func (p PolicyAuthorizer) Authorize(ctx context.Context, e skill.Edge, tool body.Tool, _ map[string]any) (skill.Authorization, error) {
	action := e.TypedAction.Type
	if e.Authorization != nil && e.Authorization.ActionType != "" {
		action = e.Authorization.ActionType
	}
	return p.Policy.Authorize(ctx, policy.Request{
		Capability: tool.Capability, ActionType: action, Tool: tool.Name,
		Annotations: tool.Annotations, TrustedServer: p.TrustedServer,
		Declared: p.Declared, DestructiveMode: p.DestructiveMode, AgentID: p.AgentID,
	})
}

// ModelChooser asks a chat model, live, to make the call a recorded edge
// made, given what the body shows now. The model is told the goal as
// written for this replay, the new input, the arguments the skill fixes
// and the ones it must choose, and must call the same tool.
type ModelChooser struct {
	Model interface {
		Chat(ctx context.Context, req openrouter.Request) (*openrouter.Response, error)
	}
	ModelID string
}

// Choose implements Chooser.
func (m ModelChooser) Choose(ctx context.Context, s Step) (Choice, error) {
	e := s.Edge
	text, err := prompt(s)
	if err != nil {
		return Choice{}, err
	}
	fns := make([]openrouter.Tool, len(s.Tools))
	for i, t := range s.Tools {
		fns[i] = openrouter.FunctionTool(t.Name, t.Description, t.InputSchema)
	}
	parallel := false
	req := openrouter.Request{
		Model: m.ModelID,
		Messages: []openrouter.Message{
			{Role: openrouter.RoleSystem, Content: "You are replaying a recorded skill one step at a time, on new inputs. Make the call the step asks for, adapted to the inputs and to what the body shows now. Call exactly one tool."},
			{Role: openrouter.RoleUser, Content: text},
		},
		Tools: fns, ParallelToolCalls: &parallel,
	}
	var billed float64 // what unreadable replies cost
	var resp *openrouter.Response
	for unreadable := 0; ; {
		resp, err = m.Model.Chat(ctx, req)
		var malformed *openrouter.MalformedError
		if !errors.As(err, &malformed) {
			break
		}
		// A reply that could not be read: ask again, telling the model
		// why, at most UnreadableRetries times in a row.
		if malformed.Usage != nil && malformed.Usage.Cost != nil {
			billed += *malformed.Usage.Cost
		}
		if unreadable++; unreadable > openrouter.UnreadableRetries {
			return Choice{CostUSD: billed, Model: m.ModelID}, fmt.Errorf("model: %w", &openrouter.UnreadableError{Replies: unreadable, Last: malformed})
		}
		req.Messages = append(req.Messages, openrouter.Message{Role: openrouter.RoleUser, Content: fmt.Sprintf(
			"error: your last reply could not be read (%s at %s); call the one tool the step asks for with a JSON object of arguments", malformed.Reason, malformed.Where)})
	}
	if err != nil {
		// A call that failed mid-generation may still have been billed.
		c := Choice{CostUSD: billed}
		if billed > 0 {
			c.Model = m.ModelID
		}
		var apiErr *openrouter.APIError
		if errors.As(err, &apiErr) && apiErr.Usage != nil && apiErr.Usage.Cost != nil {
			c.CostUSD, c.Model = c.CostUSD+*apiErr.Usage.Cost, m.ModelID
		}
		return c, fmt.Errorf("model: %w", err)
	}
	c := Choice{Model: resp.Model, CostUSD: billed}
	if cost, ok := resp.Cost(); ok {
		c.CostUSD += cost
	}
	msg := resp.Message()
	if c.Model == "" {
		c.Model = m.ModelID
	}
	if len(msg.ToolCalls) == 0 {
		text := msg.Content
		if msg.Refusal != "" {
			text = msg.Refusal
		}
		return c, fmt.Errorf("%w at edge %d: %q", ErrRefused, e.Index, truncate(text, 200))
	}
	call := msg.ToolCalls[0]
	c.Tool = call.Function.Name
	if err := call.Function.DecodeArguments(&c.Arguments); err != nil {
		return c, fmt.Errorf("the model's arguments for %s are not a JSON object: %v", c.Tool, err)
	}
	return c, nil
}

// prompt is what ModelChooser asks a model for one step: the goal written
// for this replay, the new input, the step's tool with the arguments the
// skill fixes and those the model chooses (with what the demonstration
// chose, for reference), and what the body shows now.
func prompt(s Step) (string, error) {
	obs, err := json.Marshal(s.Observation)
	if err != nil {
		return "", fmt.Errorf("encode what the body shows: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Goal: %s\n\n", s.Goal)
	if len(s.Input) > 0 {
		in, err := json.Marshal(s.Input)
		if err != nil {
			return "", fmt.Errorf("encode the input: %w", err)
		}
		fmt.Fprintf(&b, "Inputs of this replay: %s\n\n", in)
	}
	fmt.Fprintf(&b, "Step %d calls %s.\n", s.Edge.Index, s.Edge.Tool.Name)
	if len(s.Bound) > 0 {
		fixed, err := json.Marshal(s.Bound)
		if err != nil {
			return "", fmt.Errorf("encode the fixed arguments: %w", err)
		}
		fmt.Fprintf(&b, "Arguments the skill fixes (pass them as given): %s\n", fixed)
	}
	was := make(map[string]any, len(s.Choose))
	for _, name := range s.Choose {
		was[name] = s.Edge.Tool.Arguments[name]
	}
	recorded, err := json.Marshal(was)
	if err != nil {
		return "", fmt.Errorf("encode the recorded arguments: %w", err)
	}
	fmt.Fprintf(&b, "Arguments to choose from what the body shows now: %s (the demonstration chose %s)\n\n",
		strings.Join(s.Choose, ", "), recorded)
	fmt.Fprintf(&b, "The body now shows:\n%s", obs)
	return b.String(), nil
}
