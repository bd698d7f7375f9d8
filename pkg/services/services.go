// Package services says which MCP server plays which [&] service for the
// workbench — the authorizer (delegatic-mcp), memory (graphonomous-mcp) and
// the judge (prism-eval) — and gives the three clients built on them one
// vocabulary for the ways a service can be missing: not configured, not
// reachable, or not speaking the contract the workbench needs.
//
// A service is an MCP server reached by name. In the browser the name is a
// path on the same-origin relay (/api/mcp/<name>, `workbench serve --mcp
// name=URL`); natively it is the URL given for the name. By convention the
// server named "delegatic" authorizes, "graphonomous" remembers and "prism"
// judges; Config.Roles overrides the convention.
//
// Guarantees: nothing here invents an answer. Connect either returns a
// client of a server that answered tools/list and offers every tool the
// role needs, or a typed error (*NotConfiguredError, *UnreachableError,
// *ContractError) that says which of the three went wrong and where.
package services

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"workbench/pkg/mcp"
	"workbench/pkg/skill"
)

// Role is a part an [&] service plays for the workbench.
type Role string

// Roles, named after the service that plays them by convention.
const (
	// RoleAuthorizer decides every action (DESIGN §7): delegatic-mcp's
	// authorize tool.
	RoleAuthorizer Role = "delegatic"
	// RoleMemory stores and retrieves interaction traces ("Sync skill to
	// memory", the Memory tab): graphonomous-mcp.
	RoleMemory Role = "graphonomous"
	// RoleJudge judges replay output equivalence for semantic fidelity
	// (spec §5.5): prism-eval's observe tool.
	RoleJudge Role = "prism"
)

// Roles lists every role in a stable order.
func Roles() []Role { return []Role{RoleAuthorizer, RoleMemory, RoleJudge} }

// Service is the product name of the service that plays r, for messages.
func (r Role) Service() string {
	switch r {
	case RoleAuthorizer:
		return "delegatic-mcp"
	case RoleMemory:
		return "graphonomous-mcp"
	case RoleJudge:
		return "prism-eval"
	}
	return string(r)
}

// Config maps roles to MCP servers. The zero Config has no service
// configured, which is a valid state: the workbench then runs on its
// simulator and local policy engine and says so.
type Config struct {
	// Endpoints maps a server name to its MCP endpoint URL.
	Endpoints map[string]string
	// Roles overrides which server name plays a role; a role missing here
	// is played by the server named after it ("delegatic", …).
	Roles map[Role]string
	// Timeout bounds each request to a service; 0 means the client's
	// default.
	Timeout time.Duration
}

// Relay returns a Config for servers reached through the workbench's
// same-origin MCP relay at origin (e.g. "http://127.0.0.1:8000"): each
// name's endpoint is origin + "/api/mcp/" + name.
func Relay(origin string, names ...string) Config {
	origin = strings.TrimRight(origin, "/")
	c := Config{Endpoints: make(map[string]string, len(names))}
	for _, n := range names {
		c.Endpoints[n] = origin + "/api/mcp/" + url.PathEscape(n)
	}
	return c
}

// ParseRoles reads role overrides of the form "delegatic=policy-server,
// prism=judge" (the CLI's --service flag and the app's settings use it).
// Each key must be a role and each value a server name.
func ParseRoles(s string) (map[Role]string, error) {
	out := map[Role]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for i, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return nil, fmt.Errorf("services: role %d %q: want role=server", i+1, part)
		}
		r := Role(k)
		if !validRole(r) {
			return nil, fmt.Errorf("services: role %d %q: unknown role %q; the roles are %s", i+1, part, k, roleList())
		}
		if _, dup := out[r]; dup {
			return nil, fmt.Errorf("services: role %d %q: role %s is given twice", i+1, part, k)
		}
		out[r] = v
	}
	return out, nil
}

func validRole(r Role) bool {
	for _, x := range Roles() {
		if x == r {
			return true
		}
	}
	return false
}

func roleList() string {
	var s []string
	for _, r := range Roles() {
		s = append(s, string(r))
	}
	return strings.Join(s, ", ")
}

// Server returns the name of the server that plays r and its endpoint. A
// role with no endpoint is a *NotConfiguredError.
func (c Config) Server(r Role) (name, endpoint string, err error) {
	name = string(r)
	if n, ok := c.Roles[r]; ok && n != "" {
		name = n
	}
	endpoint = c.Endpoints[name]
	if endpoint == "" {
		return name, "", &NotConfiguredError{Role: r, Server: name, Known: sortedNames(c.Endpoints)}
	}
	return name, endpoint, nil
}

// Configured reports whether some server is named for r.
func (c Config) Configured(r Role) bool {
	_, _, err := c.Server(r)
	return err == nil
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// NotConfiguredError means no MCP server is configured for a role.
type NotConfiguredError struct {
	Role   Role
	Server string   // the server name the role looked for
	Known  []string // the names that are configured
}

func (e *NotConfiguredError) Error() string {
	known := "no MCP servers are configured"
	if len(e.Known) > 0 {
		known = "the configured servers are " + strings.Join(e.Known, ", ")
	}
	return fmt.Sprintf("%s is not configured: no MCP server named %q (%s)", e.Role.Service(), e.Server, known)
}

// UnreachableError means the configured server did not answer the MCP
// handshake or tools/list: it is down, the relay has no such name, or the
// network failed. Err is the client's error (*mcp.UnreachableError,
// *mcp.HTTPError, …).
type UnreachableError struct {
	Role     Role
	Server   string
	Endpoint string
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s (server %q at %s) is not reachable: %v", e.Role.Service(), e.Server, e.Endpoint, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ContractError means the server answered but does not offer what the
// workbench needs: a tool is missing, its declared input schema does not
// accept the arguments the workbench sends, or an answer is not in the
// published shape. Problems name each mismatch (argument, schema member,
// answer member).
type ContractError struct {
	Role     Role
	Server   string
	Tool     string
	Problems []string
}

func (e *ContractError) Error() string {
	return fmt.Sprintf("%s (server %q) does not speak the contract of its %s tool: %s",
		e.Role.Service(), e.Server, e.Tool, strings.Join(e.Problems, "; "))
}

// ToolError is a tool's own report of failure (isError): the call was
// made and answered, and the service said no. Code and Reason come from
// the service's structured answer ({"status":"error","error":…,
// "reason":…}) or, failing that, its text.
type ToolError struct {
	Role   Role
	Server string
	Tool   string
	Code   string
	Reason string
}

func (e *ToolError) Error() string {
	s := fmt.Sprintf("%s (server %q) %s failed", e.Role.Service(), e.Server, e.Tool)
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Unavailable reports whether err means the service cannot be used at all
// — not configured, not reachable, or not speaking the contract — as
// opposed to a service that answered and refused.
func Unavailable(err error) bool {
	var nc *NotConfiguredError
	var ue *UnreachableError
	var ce *ContractError
	return errors.As(err, &nc) || errors.As(err, &ue) || errors.As(err, &ce)
}

// Conn is a live connection to the server that plays a role, with the
// tools it offers.
type Conn struct {
	Role     Role
	Server   string
	Endpoint string
	Client   *mcp.Client
	Tools    map[string]mcp.Tool
}

// Connect dials the server that plays r, lists its tools and checks that
// every tool in need is offered. opts may be nil; Config.Timeout applies
// when opts sets none. A cancelled ctx is returned as the context's error,
// not as unreachability.
func Connect(ctx context.Context, c Config, r Role, opts *mcp.Options, need ...string) (*Conn, error) {
	name, endpoint, err := c.Server(r)
	if err != nil {
		return nil, err
	}
	o := mcp.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Timeout == 0 {
		o.Timeout = c.Timeout
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo = mcp.Implementation{Name: "workbench:" + string(r), Version: skill.WorkbenchVersion}
	}
	client, err := mcp.Dial(ctx, endpoint, &o)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("services: connect to %s: %w", r.Service(), ctx.Err())
		}
		return nil, &UnreachableError{Role: r, Server: name, Endpoint: endpoint, Err: err}
	}
	list, err := client.ListTools(ctx)
	if err != nil {
		client.Close(context.WithoutCancel(ctx))
		if ctx.Err() != nil {
			return nil, fmt.Errorf("services: list the tools of %s: %w", r.Service(), ctx.Err())
		}
		return nil, &UnreachableError{Role: r, Server: name, Endpoint: endpoint, Err: err}
	}
	conn := &Conn{Role: r, Server: name, Endpoint: endpoint, Client: client, Tools: make(map[string]mcp.Tool, len(list))}
	for _, t := range list {
		conn.Tools[t.Name] = t
	}
	for _, n := range need {
		if _, ok := conn.Tools[n]; !ok {
			client.Close(context.WithoutCancel(ctx))
			return nil, &ContractError{Role: r, Server: name, Tool: n, Problems: []string{
				fmt.Sprintf("the server offers no tool named %q (it offers %s)", n, toolNames(list))}}
		}
	}
	return conn, nil
}

// Close ends the connection's session.
func (c *Conn) Close(ctx context.Context) error { return c.Client.Close(ctx) }

func toolNames(list []mcp.Tool) string {
	if len(list) == 0 {
		return "no tools"
	}
	names := make([]string, len(list))
	for i, t := range list {
		names[i] = t.Name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
