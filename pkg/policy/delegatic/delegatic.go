// Package delegatic authorizes the workbench's actions with a delegatic-mcp
// server's authorize tool (DESIGN §7), as a policy.Authorizer that stands
// in for the local engine without its callers changing.
//
// The contract is the one delegatic-mcp publishes: authorize takes
// {action_type, policy_id, agent_id, approved_by, ttl_seconds?} and grants
// with {"status":"ok","authorization_block":{policy_id, approved_by,
// approved_at, expires_at, authorization_token}}; it refuses with an
// isError result ({"status":"error","error":…,"reason":…}). New reads the
// server's declared input schema and refuses a server whose authorize
// tool would not accept those arguments, naming the mismatch.
//
// Guarantees: it fails closed. Only a well-formed grant for the policy
// asked about is an allow; a refusal, a transport failure, a timeout and
// an answer that cannot be read are each a deny whose reason says which,
// recorded in the action's authorization block like any other decision.
// Only a cancelled context returns an error (the run is over; there is
// nothing to decide). Every block names the authorizer "delegatic-mcp".
//
// Spec OQ-2 says which authorizer applies: delegatic-mcp for the browser
// and host bodies, the local engine allowed for the simulator only.
// Choose applies that rule (see docs/services.md for what the UI does
// when delegatic-mcp is missing).
package delegatic

import (
	"context"
	"fmt"
	"strings"
	"time"

	"workbench/pkg/mcp"
	"workbench/pkg/policy"
	"workbench/pkg/services"
	"workbench/pkg/skill"
)

// Name is the authorizer every block this package returns names.
const Name = "delegatic-mcp"

// Tool is the delegatic-mcp tool that decides an action.
const Tool = "authorize"

// Options configure an Authorizer.
type Options struct {
	// PolicyID is the delegatic policy every action is decided under; the
	// manifest's delegatic_policy_id. Empty means workbench-default-v1.
	// The server must hold a policy with this id.
	PolicyID string
	// ApprovedBy is the principal approving the grants: the workbench's
	// user. Required.
	ApprovedBy string
	// AgentID is sent when a request names no agent. Empty means
	// "workbench".
	AgentID string
	// TTLSeconds, when positive, asks for grants that live this long.
	TTLSeconds int
	// Now is the clock decided_at and expiry checks use; nil means
	// time.Now.
	Now func() time.Time
	// NewID mints the block ids of denials (a grant's block id is its
	// authorization_token); nil means skill.NewID.
	NewID func() string
	// CallTimeout bounds one authorize call; 0 means the connection's
	// timeout. An authorize call that times out is a deny.
	CallTimeout time.Duration
}

// Authorizer is a client of one delegatic-mcp server's authorize tool. It
// is safe for concurrent use.
type Authorizer struct {
	conn *services.Conn
	opt  Options
}

// New returns an Authorizer over a connection to the server that plays
// services.RoleAuthorizer. It checks, against the input schema the server
// declared, that authorize accepts the arguments this package sends; a
// server that does not is a *services.ContractError naming each mismatch.
func New(conn *services.Conn, opt Options) (*Authorizer, error) {
	if opt.PolicyID == "" {
		opt.PolicyID = skill.DefaultPolicyID
	}
	if opt.AgentID == "" {
		opt.AgentID = "workbench"
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.NewID == nil {
		opt.NewID = skill.NewID
	}
	if strings.TrimSpace(opt.ApprovedBy) == "" {
		return nil, fmt.Errorf("delegatic: Options.ApprovedBy is required: delegatic-mcp records who approved each grant")
	}
	a := &Authorizer{conn: conn, opt: opt}
	if err := conn.CheckArgs(Tool, a.args(policy.Request{ActionType: "browser.click"})); err != nil {
		return nil, err
	}
	return a, nil
}

// Connect connects to the authorizer role of cfg and returns its
// Authorizer, or a *services.NotConfiguredError, *services.UnreachableError
// or *services.ContractError.
func Connect(ctx context.Context, cfg services.Config, mopts *mcp.Options, opt Options) (*Authorizer, error) {
	conn, err := services.Connect(ctx, cfg, services.RoleAuthorizer, mopts, Tool)
	if err != nil {
		return nil, err
	}
	a, err := New(conn, opt)
	if err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return a, nil
}

// Server names the server decisions come from.
func (a *Authorizer) Server() string { return a.conn.Server }

// PolicyID is the policy decisions are asked under.
func (a *Authorizer) PolicyID() string { return a.opt.PolicyID }

// Close ends the session with the server.
func (a *Authorizer) Close(ctx context.Context) error { return a.conn.Close(ctx) }

func (a *Authorizer) args(req policy.Request) map[string]any {
	agent := req.AgentID
	if agent == "" {
		agent = a.opt.AgentID
	}
	args := map[string]any{
		"action_type": req.ActionType,
		"policy_id":   a.opt.PolicyID,
		"agent_id":    agent,
		"approved_by": a.opt.ApprovedBy,
	}
	if a.opt.TTLSeconds > 0 {
		args["ttl_seconds"] = a.opt.TTLSeconds
	}
	return args
}

// Authorize asks the server to decide req and returns the block to
// record. See the package comment for how answers map to decisions.
func (a *Authorizer) Authorize(ctx context.Context, req policy.Request) (skill.Authorization, error) {
	if err := ctx.Err(); err != nil {
		return skill.Authorization{}, fmt.Errorf("delegatic: authorize %s: %w", req.ActionType, err)
	}
	var opts []mcp.CallOption
	if a.opt.CallTimeout > 0 {
		opts = append(opts, mcp.WithTimeout(a.opt.CallTimeout))
	}
	res, err := a.conn.Client.CallTool(ctx, Tool, a.args(req), opts...)
	if ctx.Err() != nil {
		return skill.Authorization{}, fmt.Errorf("delegatic: authorize %s: %w", req.ActionType, ctx.Err())
	}
	if err != nil {
		return a.deny(req, fmt.Sprintf("%s (server %q) gave no decision, so the action is denied: %v", Name, a.conn.Server, err)), nil
	}
	if res.IsError {
		r := a.conn.Refusal(Tool, res)
		why := r.Reason
		if r.Code != "" && why != "" {
			why = r.Code + ": " + why
		} else if r.Code != "" {
			why = r.Code
		}
		return a.deny(req, fmt.Sprintf("%s refused: %s", Name, why)), nil
	}
	g, problem := a.grant(res)
	if problem != "" {
		return a.deny(req, fmt.Sprintf("%s (server %q) answered something that is not a grant, so the action is denied: %s", Name, a.conn.Server, problem)), nil
	}
	return skill.Authorization{
		BlockID:    g.token,
		PolicyID:   a.opt.PolicyID,
		Decision:   skill.DecisionAllow,
		Capability: req.Capability,
		ActionType: req.ActionType,
		Reason:     fmt.Sprintf("%s granted %s to %s, approved by %s at %s, expires %s", Name, req.ActionType, a.args(req)["agent_id"], g.approvedBy, g.approvedAt, g.expiresAt),
		DecidedAt:  skill.Timestamp(a.opt.Now()),
		Authorizer: Name,
		Strength:   policy.StrengthEnforced,
	}, nil
}

func (a *Authorizer) deny(req policy.Request, reason string) skill.Authorization {
	return skill.Authorization{
		BlockID:    a.opt.NewID(),
		PolicyID:   a.opt.PolicyID,
		Decision:   skill.DecisionDeny,
		Capability: req.Capability,
		ActionType: req.ActionType,
		Reason:     reason,
		DecidedAt:  skill.Timestamp(a.opt.Now()),
		Authorizer: Name,
		Strength:   policy.StrengthEnforced,
	}
}

// grantBlock is delegatic-mcp's authorization_block.
type grantBlock struct {
	approvedBy, approvedAt, expiresAt, token string
}

// grant reads a successful answer; problem is why it is not a usable
// grant.
func (a *Authorizer) grant(res *mcp.CallResult) (grantBlock, string) {
	m, err := a.conn.Answer(Tool, res)
	if err != nil {
		return grantBlock{}, err.Error()
	}
	if st, _ := m["status"].(string); st != "ok" {
		return grantBlock{}, fmt.Sprintf("/status is %s, not \"ok\"", show(m["status"]))
	}
	blk, ok := m["authorization_block"].(map[string]any)
	if !ok {
		return grantBlock{}, fmt.Sprintf("/authorization_block is %s, not an object", show(m["authorization_block"]))
	}
	str := func(k string) (string, string) {
		s, ok := blk[k].(string)
		if !ok || strings.TrimSpace(s) == "" {
			return "", fmt.Sprintf("/authorization_block/%s is %s, not a non-empty string", k, show(blk[k]))
		}
		return s, ""
	}
	var g grantBlock
	var pid, p string
	if pid, p = str("policy_id"); p != "" {
		return g, p
	}
	if pid != a.opt.PolicyID {
		return g, fmt.Sprintf("/authorization_block/policy_id is %q, not the policy asked about, %q", pid, a.opt.PolicyID)
	}
	for _, f := range []struct {
		k string
		v *string
	}{{"authorization_token", &g.token}, {"approved_by", &g.approvedBy}, {"approved_at", &g.approvedAt}, {"expires_at", &g.expiresAt}} {
		if *f.v, p = str(f.k); p != "" {
			return g, p
		}
	}
	exp, err := time.Parse(time.RFC3339Nano, g.expiresAt)
	if err != nil {
		return g, fmt.Sprintf("/authorization_block/expires_at %q is not an RFC 3339 time", g.expiresAt)
	}
	if !exp.After(a.opt.Now()) {
		return g, fmt.Sprintf("the grant expired at %s, before it arrived", g.expiresAt)
	}
	return g, ""
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "missing"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprintf("%v", v)
}
