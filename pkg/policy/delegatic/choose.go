package delegatic

import (
	"context"
	"errors"
	"fmt"

	"workbench/pkg/body"
	"workbench/pkg/mcp"
	"workbench/pkg/policy"
	"workbench/pkg/services"
)

// Choice is the authorizer that applies to a demonstration or replay.
type Choice struct {
	// Authorizer decides the run's actions. Nil when the rule of spec
	// OQ-2 could not be met; see Fallback.
	Authorizer policy.Authorizer
	// Name is what the chosen authorizer records in every block:
	// "delegatic-mcp", or the local engine's "local:<policy id>".
	Name string
	// Delegatic is the delegatic-mcp client when one was reached; the
	// caller closes it.
	Delegatic *Authorizer
	// Fallback is the local engine, offered when Authorizer is nil
	// because delegatic-mcp is missing for an MCP body. A caller may use
	// it only on the user's explicit say-so; every block it records then
	// names the local engine, so the bundle shows which authority was in
	// scope.
	Fallback policy.Authorizer
	// Why explains the choice in one sentence, for the UI.
	Why string
}

// Choose applies spec OQ-2: delegatic-mcp authorizes the browser and host
// bodies; the local engine is allowed for the simulator only. When
// delegatic-mcp is configured it authorizes every body kind, the
// simulator included (DESIGN §7: it is called instead of the local
// engine).
//
// The error is nil when Choice.Authorizer is set. Otherwise it is the
// reason delegatic-mcp cannot be used — a *services.NotConfiguredError
// ("delegatic-mcp is not configured: …"), *services.UnreachableError or
// *services.ContractError, wrapped with the body kind — and
// Choice.Fallback holds the local engine for a user who chooses to go on
// without it. A configured delegatic-mcp that cannot be reached is an
// error for the simulator too: the user asked for it, and running under
// another authority without saying so would hide that.
func Choose(ctx context.Context, kind body.Kind, cfg services.Config, local *policy.Engine, mopts *mcp.Options, opt Options) (Choice, error) {
	switch kind {
	case body.KindSimulator, body.KindBrowser, body.KindHost:
	default:
		return Choice{}, fmt.Errorf("delegatic: unknown body kind %q", kind)
	}
	if local == nil {
		return Choice{}, errors.New("delegatic: Choose needs the local engine")
	}
	configured := cfg.Configured(services.RoleAuthorizer)
	if !configured && kind == body.KindSimulator {
		return Choice{Authorizer: local, Name: local.Authorizer(),
			Why: "delegatic-mcp is not configured; the simulator runs under the local policy engine (spec OQ-2)"}, nil
	}
	a, err := Connect(ctx, cfg, mopts, opt)
	if err != nil {
		if ctx.Err() != nil {
			return Choice{}, err
		}
		return Choice{Fallback: local, Name: local.Authorizer(),
				Why: fmt.Sprintf("the %s body needs delegatic-mcp (spec OQ-2) and it cannot be used", kind)},
			fmt.Errorf("%w (spec OQ-2 requires delegatic-mcp for the %s body)", err, kind)
	}
	return Choice{Authorizer: a, Delegatic: a, Name: Name,
		Why: fmt.Sprintf("delegatic-mcp (server %q) decides every action under policy %s", a.Server(), a.PolicyID())}, nil
}
