package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
	BodyKind        string
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
// made, given the body's current observation. The model sees the goal, the
// recorded call and the new observation, and must call the same tool.
type ModelChooser struct {
	Model interface {
		Chat(ctx context.Context, req openrouter.Request) (*openrouter.Response, error)
	}
	ModelID string
	Goal    string
}

// Choose implements Chooser.
func (m ModelChooser) Choose(ctx context.Context, e skill.Edge, tools []body.Tool, observation any) (Choice, error) {
	obs, err := json.Marshal(observation)
	if err != nil {
		return Choice{}, err
	}
	recorded, _ := json.Marshal(e.Tool.Arguments)
	fns := make([]openrouter.Tool, len(tools))
	for i, t := range tools {
		fns[i] = openrouter.FunctionTool(t.Name, t.Description, t.InputSchema)
	}
	parallel := false
	req := openrouter.Request{
		Model: m.ModelID,
		Messages: []openrouter.Message{
			{Role: openrouter.RoleSystem, Content: "You are replaying a recorded skill one step at a time. Make the call the step asks for, adapted to what the body shows now. Call exactly one tool."},
			{Role: openrouter.RoleUser, Content: fmt.Sprintf("Goal: %s\n\nRecorded step %d: %s with arguments %s\n\nThe body now shows:\n%s",
				m.Goal, e.Index, e.Tool.Name, recorded, obs)},
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
