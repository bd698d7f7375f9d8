package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/body"
	"workbench/pkg/mcp"
	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/services"
	"workbench/pkg/session"
)

// The names the MCP bodies are found under, on the relay and on a paired
// computer alike: `workbench serve` relays the browser and host it starts
// (or the servers `--mcp browser=URL`, `--mcp host=URL` name), and
// `workbench bodies` serves them under the same names
// (docs/app-bodies.md).
const (
	browserServer = "browser"
	hostServer    = "host"
)

// bodyServer is the relay name of a body choice's MCP server; "" for the
// simulator.
func bodyServer(c body.Kind) string {
	switch c {
	case body.KindBrowser:
		return browserServer
	case body.KindHost:
		return hostServer
	}
	return ""
}

// sessionStorage items of the MCP settings the user makes on /. They
// live for the tab only, like the body choice.
const (
	trustedItem     = "workbench.trusted"       // JSON list of relay names the user trusts
	perceiveItem    = "workbench.host.perceive" // the host body's perceive tool
	perceiveArgItem = "workbench.host.perceive_args"
)

// defaultHostPerceive is the host body's perceive tool unless the user
// names another: the reference filesystem server's tree (docs/bodies.md).
const (
	defaultHostPerceive     = "directory_tree"
	defaultHostPerceiveArgs = `{"path": "."}`
)

// approvedBy is the principal delegatic-mcp is told approves the grants:
// the person at this tab, who has no account (spec: no accounts in v0.1).
const approvedBy = "workbench-user"

// mcpSettings are the tab's MCP choices: which servers the user trusts
// (DESIGN §7: default untrusted) and how the host body observes itself.
type mcpSettings struct {
	Trusted      []string
	Perceive     string
	PerceiveArgs string
}

// readMCPSettings reads the settings from the tab's sessionStorage, with
// the defaults for what was never set.
func readMCPSettings(ctx app.Context) mcpSettings {
	var s mcpSettings
	_ = ctx.SessionStorage().Get(trustedItem, &s.Trusted) // unset or unreadable: trust nothing
	if err := ctx.SessionStorage().Get(perceiveItem, &s.Perceive); err != nil || strings.TrimSpace(s.Perceive) == "" {
		s.Perceive = defaultHostPerceive
	}
	if err := ctx.SessionStorage().Get(perceiveArgItem, &s.PerceiveArgs); err != nil || strings.TrimSpace(s.PerceiveArgs) == "" {
		s.PerceiveArgs = defaultHostPerceiveArgs
	}
	return s
}

// trusts reports whether the user marked the relay name trusted.
func (s mcpSettings) trusts(name string) bool { return slices.Contains(s.Trusted, name) }

// perceive is the host body's perceive call, or an error naming the field.
func (s mcpSettings) perceive() (string, map[string]any, error) {
	var args map[string]any
	if err := json.Unmarshal([]byte(s.PerceiveArgs), &args); err != nil {
		return "", nil, fmt.Errorf("the host body's perceive arguments %q are not a JSON object: %w", s.PerceiveArgs, err)
	}
	return s.Perceive, args, nil
}

// errBodyNotConfigured: neither this tab's pairing nor the deployment's
// relay offers the chosen MCP body. Said as it is, never replaced by the
// simulator.
type errBodyNotConfigured struct {
	choice body.Kind
	known  []string // the names the relay does have
}

func (e errBodyNotConfigured) Error() string {
	known := "none"
	if len(e.known) > 0 {
		known = strings.Join(e.known, ", ")
	}
	return fmt.Sprintf("the %s body is not available: this tab is not paired with bodies on this computer, and this workbench's MCP relay has no server named %q (it has: %s); pair this computer on the home page (This computer), or pick the simulator there",
		e.choice, bodyServer(e.choice), known)
}

// services returns the deployment's [&] services and MCP bodies: the
// servers the same-origin relay forwards to. A workbench without a relay
// has none, which is a valid configuration; a relay that answers with an
// error is that error. It does not connect to any server.
func (e *env) services(ctx context.Context) (services.Config, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	names, err := relayPlace(e.origin()).list(ctx)
	switch {
	case errors.Is(err, errNoRelay):
		return services.Config{}, nil
	case err != nil:
		return services.Config{}, err
	}
	cfg := services.Relay(e.origin(), names...)
	cfg.Timeout = 90 * time.Second
	return cfg, nil
}

// pairing is the tab's pairing with `workbench bodies` on this computer,
// if it has one.
func (e *env) pairing() (session.Pairing, bool) {
	s, err := e.sessionStorage()
	if err != nil {
		return session.Pairing{}, false
	}
	p, ok, err := s.Pairing()
	return p, ok && err == nil
}

// bodyPlace is where the MCP body of choice is reached: on this computer
// when the tab is paired (the person's own explicit choice), else through
// the relay when it names the body's server. It connects to nothing.
func (e *env) bodyPlace(ctx context.Context, choice body.Kind) (mcpPlace, error) {
	if p, ok := e.pairing(); ok {
		return pairedPlace(p), nil
	}
	cfg, err := e.services(ctx)
	if err != nil {
		return mcpPlace{}, fmt.Errorf("the %s body: %w", choice, err)
	}
	if _, ok := cfg.Endpoints[bodyServer(choice)]; !ok {
		return mcpPlace{}, errBodyNotConfigured{choice: choice, known: relayNames(cfg)}
	}
	return relayPlace(e.origin()), nil
}

// relayNames are the configured names of cfg, sorted.
func relayNames(cfg services.Config) []string {
	names := make([]string, 0, len(cfg.Endpoints))
	for n := range cfg.Endpoints {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// checkBody says whether choice can be used without connecting to
// anything: the simulator always, an MCP body when the tab is paired or
// the relay names its server.
func (e *env) checkBody(ctx context.Context, choice body.Kind) error {
	if bodyServer(choice) == "" {
		return nil
	}
	_, err := e.bodyPlace(ctx, choice)
	return err
}

// authorizer applies spec OQ-2 for a run on a body of kind: delegatic-mcp
// when the relay names it (for every body), the local engine for the
// simulator otherwise. When delegatic-mcp cannot be used, the error says
// why and the Choice's Fallback is the local engine, which the caller may
// use only after the user confirmed it for this run.
func (e *env) authorizer(ctx context.Context, kind body.Kind, policyID string) (delegatic.Choice, error) {
	cfg, err := e.services(ctx)
	if err != nil {
		return delegatic.Choice{Fallback: policy.Default()}, fmt.Errorf("the authorizer could not be chosen: %w", err)
	}
	return delegatic.Choose(ctx, kind, cfg, policy.Default(), &mcp.Options{Timeout: 30 * time.Second, Revisions: &e.mcpRevisions},
		delegatic.Options{PolicyID: policyID, ApprovedBy: approvedBy, CallTimeout: 30 * time.Second})
}
