package workbench

import (
	"context"
	"errors"

	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
)

// teachRig is what a demonstration runs with: the body it acts through
// and the authority that decides each of its actions.
type teachRig struct {
	body body.Body
	// trusted says whether the body's tool annotations are believed
	// (DESIGN §7); the simulator's always are.
	trusted bool
	// authority is the authorizer spec OQ-2 chose for the body.
	authority *Authority

	closeBody func()
}

// close ends the body's session and the delegatic-mcp session, if any.
func (r *teachRig) close() {
	if r.closeBody != nil {
		r.closeBody()
	}
	if r.authority != nil {
		r.authority.Close()
	}
}

// openTeach opens the body the plan's task runs on (the simulator in the
// plan's world, or an MCP body through the BodyFactory) and chooses its
// authorizer by the rule a replay follows (spec OQ-2) under the default
// policy. The body is opened first, so a body that cannot be used is said
// before the authorizer is asked. When delegatic-mcp cannot decide, the
// demonstration may run under the local engine only when acceptLocal, or
// the standing answer, says the user accepted it; otherwise the error is
// an *AuthorizerUnavailableError and nothing stays open.
func (fl *Flows) openTeach(ctx context.Context, p *teach.Plan, acceptLocal bool) (*teachRig, error) {
	if p == nil {
		return nil, errors.New("teach: no plan")
	}
	kind := p.Task.BodyChoice
	if kind == "" {
		kind = body.KindSimulator
	}
	bd, trusted, closeBd, err := fl.openBody(ctx, kind, p.WorldName, p.World)
	if err != nil {
		return nil, err
	}
	a, err := fl.authorize(ctx, kind, skill.DefaultPolicyID, acceptLocal)
	if err != nil {
		closeBd()
		return nil, err
	}
	return &teachRig{body: bd, trusted: trusted, authority: a, closeBody: closeBd}, nil
}
