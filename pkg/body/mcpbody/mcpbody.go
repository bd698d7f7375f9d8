// Package mcpbody is a body (package body) reached over MCP: a browser
// driven by an MCP server such as Playwright MCP, or a host whose MCP
// server exposes file or shell tools (DESIGN §4).
//
// A Body offers the server's tools as its actions and performs them with
// tools/call. It perceives by calling one configured tool, the perceive
// tool, and normalizes the result into its encoded state, so that two
// visits to the same situation hash alike:
//
//   - browser (KindBrowser, capability &body.browser): the perceive tool
//     is browser_snapshot; its page section keeps the URL and title and
//     drops the console counts, and its YAML accessibility tree becomes a
//     JSON tree in which each element is an object keyed by its role, so
//     that the shape signature sees the page's layout. Element references
//     are renumbered e1, e2, … in document order: the server's own
//     references change between identical visits (e4, then f1e4), the
//     renumbered ones do not. The body speaks only renumbered references:
//     it rewrites them into every result it returns and translates them
//     back in the arguments of every call, so a recorded click on e4
//     replays as a click on whatever the server now calls the fourth
//     element.
//   - host (KindHost, capability &body.os): the perceive tool is whatever
//     the server offers to look at its files (e.g. a directory tree), named
//     in Options.Perceive; the state is its structured content if any,
//     else its text parsed as JSON, else its text as lines.
//
// Side effects come from the tools' MCP annotations (DESIGN §7). They are
// the server's claims: a Body whose server the user has not marked trusted
// (Options.Trusted) reports no hints at all, so that a policy derives no
// read-only action from them whatever its caller says about trust; callers
// pass Trusted to the policy as its TrustedServer.
//
// A Body is safe for concurrent use, though demonstration and replay use it
// one call at a time. It builds for js/wasm.
package mcpbody

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"workbench/pkg/body"
	"workbench/pkg/mcp"
	"workbench/pkg/skill"
)

// DefaultBrowserPerceive is the browser body's perceive tool: Playwright
// MCP's accessibility snapshot of the current page.
const DefaultBrowserPerceive = "browser_snapshot"

// DefaultRefKeys returns the argument names whose values are element
// references, at any depth of a call's arguments (Playwright MCP 0.0.83
// names them target, startTarget and endTarget; older versions ref).
func DefaultRefKeys() []string { return []string{"target", "startTarget", "endTarget", "ref"} }

// Perceive is the tool call a body observes itself with.
type Perceive struct {
	Tool      string
	Arguments map[string]any
}

// Options configure a Body.
type Options struct {
	// Kind is body.KindBrowser or body.KindHost.
	Kind body.Kind
	// Name is what Server reports and traces record as the tool calls'
	// server, in lowercase letters, digits, '.', '_' and '-' (as traces
	// name servers); empty means the name the server gave in the
	// handshake, else the URL's host, each put in that form.
	Name string
	// Trusted is the user's word that the server's tool annotations tell
	// the truth (DESIGN §7). Untrusted, the body reports no hints.
	Trusted bool
	// Capability is the [&] capability every tool exercises; empty means
	// &body.browser for a browser and &body.os for a host.
	Capability string
	// Perceive is how the body observes itself. Empty means
	// browser_snapshot with no arguments for a browser; a host has no
	// default, since servers name their listing tools differently.
	Perceive Perceive
	// Normalize turns the perceive tool's result into the encoded state.
	// Nil means the kind's default (see the package comment). A browser
	// with its own Normalize has no reference renumbering: the server's
	// references pass through unchanged.
	Normalize func(body.Result) (any, error)
	// Tools, when not empty, lists the only tools the body offers; the
	// perceive tool is called whether offered or not.
	Tools []string
	// RefKeys are the argument names that carry element references;
	// nil means DefaultRefKeys(). Browser only.
	RefKeys []string
	// Client configures the MCP client; nil means its defaults.
	Client *mcp.Options
}

// Body is a body whose tools are an MCP server's.
type Body struct {
	c          *mcp.Client
	kind       body.Kind
	name       string
	trusted    bool
	capability string
	perceive   Perceive
	normalize  func(body.Result) (any, error)
	renumber   bool // the default browser normalization: refs are renumbered
	only       []string
	refKeys    []string

	mu   sync.Mutex
	refs *refMap // from the latest observation; nil before the first
}

// Dial connects to the MCP server at endpoint and returns a body over it.
// The caller closes it.
func Dial(ctx context.Context, endpoint string, opts Options) (*Body, error) {
	if err := check(opts); err != nil {
		return nil, err
	}
	c, err := mcp.Dial(ctx, endpoint, opts.Client)
	if err != nil {
		return nil, fmt.Errorf("mcpbody: %w", err)
	}
	if opts.Name == "" {
		opts.Name = serverName(c.ServerInfo().ServerInfo.Name)
	}
	if opts.Name == "" {
		if u, err := url.Parse(endpoint); err == nil {
			opts.Name = serverName(u.Host)
		}
	}
	return New(c, opts)
}

// New returns a body over an established client. The body owns c from
// then on: Close closes it.
func New(c *mcp.Client, opts Options) (*Body, error) {
	if err := check(opts); err != nil {
		return nil, err
	}
	b := &Body{c: c, kind: opts.Kind, name: opts.Name, trusted: opts.Trusted, capability: opts.Capability,
		perceive: opts.Perceive, normalize: opts.Normalize, only: slices.Clone(opts.Tools), refKeys: opts.RefKeys}
	if b.name == "" {
		b.name = serverName(c.ServerInfo().ServerInfo.Name)
	}
	if b.name == "" { // a server that gave no name
		b.name = "mcp-" + string(b.kind)
	}
	if b.refKeys == nil {
		b.refKeys = DefaultRefKeys()
	}
	switch b.kind {
	case body.KindBrowser:
		if b.capability == "" {
			b.capability = skill.CapabilityBrowser
		}
		if b.perceive.Tool == "" {
			b.perceive.Tool = DefaultBrowserPerceive
		}
		if b.normalize == nil {
			b.renumber = true
		}
	case body.KindHost:
		if b.capability == "" {
			b.capability = skill.CapabilityOS
		}
		if b.normalize == nil {
			b.normalize = NormalizeHost
		}
	}
	if b.perceive.Arguments == nil {
		b.perceive.Arguments = map[string]any{}
	}
	return b, nil
}

func check(opts Options) error {
	if opts.Name != "" && serverName(opts.Name) != opts.Name {
		return fmt.Errorf("mcpbody: server name %q: use lowercase letters, digits, '.', '_' and '-' (e.g. %q)", opts.Name, serverName(opts.Name))
	}
	switch opts.Kind {
	case body.KindBrowser:
	case body.KindHost:
		if opts.Perceive.Tool == "" {
			return errors.New("mcpbody: a host body needs a perceive tool (Options.Perceive), e.g. the server's directory listing")
		}
	default:
		return fmt.Errorf("mcpbody: kind %q: want %q or %q", opts.Kind, body.KindBrowser, body.KindHost)
	}
	return nil
}

// Kind implements body.Body.
func (b *Body) Kind() body.Kind { return b.kind }

// Server implements body.Body.
func (b *Body) Server() string { return b.name }

// Trusted reports whether the user trusts the server's annotations; pass
// it to the policy as TrustedServer.
func (b *Body) Trusted() bool { return b.trusted }

// Client is the MCP client the body calls through.
func (b *Body) Client() *mcp.Client { return b.c }

// Close ends the MCP session.
func (b *Body) Close(ctx context.Context) error { return b.c.Close(ctx) }

// Tools implements body.Body: the server's tools, listed anew each time so
// that a server that has changed or gone away is noticed.
func (b *Body) Tools(ctx context.Context) ([]body.Tool, error) {
	ts, err := b.c.ListTools(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcpbody: list tools: %w", err)
	}
	out := make([]body.Tool, 0, len(ts))
	for _, t := range ts {
		if len(b.only) > 0 && !slices.Contains(b.only, t.Name) {
			continue
		}
		bt := mcp.BodyTool(t, b.capability)
		if !b.trusted {
			// The server's claims do not reach a policy as facts.
			bt.Annotations = body.Annotations{Title: bt.Annotations.Title}
		}
		out = append(out, bt)
	}
	return out, nil
}

// Call implements body.Body. Element references in args are translated
// to the server's current ones, and the server's references in the result
// to the body's. A browser's result ends with the page as the body
// observes it after the call, unless the result already shows the page.
func (b *Body) Call(ctx context.Context, tool string, args map[string]any) (body.Result, error) {
	if len(b.only) > 0 && !slices.Contains(b.only, tool) {
		return body.Result{}, fmt.Errorf("mcpbody: the body does not offer the tool %q", tool)
	}
	if args == nil {
		args = map[string]any{}
	}
	if b.renumber && hasRefArg(args, b.refKeys) {
		if b.currentRefs() == nil {
			if _, err := b.State(ctx); err != nil {
				return body.Result{}, err
			}
		}
		args = translateArgs(args, b.refKeys, b.currentRefs().toLive).(map[string]any)
	}
	r, err := b.c.CallTool(ctx, tool, args)
	if err != nil {
		return body.Result{}, fmt.Errorf("mcpbody: %w", err)
	}
	res, err := mcp.BodyResult(r)
	if err != nil {
		return body.Result{}, fmt.Errorf("mcpbody: %s: %w", tool, err)
	}
	if !b.renumber {
		return res, nil
	}
	if v, err := parsePage(res.Text); err == nil {
		// The result shows a page (browser_snapshot): it is the latest
		// observation, and its references are numbered by it.
		b.setRefs(&v.refs)
		res.Text = rewriteRefs(res.Text, v.refs.toNorm)
		return res, nil
	}
	text, err := b.observe(ctx)
	if err != nil {
		res.Text += "\n\n(The page could not be observed after the call: " + err.Error() + ")"
		return res, nil
	}
	res.Text = strings.TrimRight(rewriteRefs(res.Text, b.currentRefs().toNorm), "\n") + "\n\n" + afterHeading + "\n" + text
	return res, nil
}

// afterHeading introduces the page a browser body appends to a result.
const afterHeading = "### Page after the call (element references as this body numbers them)"

// State implements body.Body: the normalized result of the perceive tool.
func (b *Body) State(ctx context.Context) (any, error) {
	res, err := b.perceiveResult(ctx)
	if err != nil {
		return nil, err
	}
	if !b.renumber {
		st, err := b.normalize(res)
		if err != nil {
			return nil, fmt.Errorf("mcpbody: normalize the result of %s: %w", b.perceive.Tool, err)
		}
		return st, nil
	}
	v, err := parsePage(res.Text)
	if err != nil {
		return nil, fmt.Errorf("mcpbody: the result of %s: %w", b.perceive.Tool, err)
	}
	b.setRefs(&v.refs)
	return v.state, nil
}

// observe perceives a browser and returns the page as text with the
// body's references.
func (b *Body) observe(ctx context.Context) (string, error) {
	res, err := b.perceiveResult(ctx)
	if err != nil {
		return "", err
	}
	v, err := parsePage(res.Text)
	if err != nil {
		return "", fmt.Errorf("the result of %s: %w", b.perceive.Tool, err)
	}
	b.setRefs(&v.refs)
	return v.text, nil
}

func (b *Body) perceiveResult(ctx context.Context) (body.Result, error) {
	r, err := b.c.CallTool(ctx, b.perceive.Tool, b.perceive.Arguments)
	if err != nil {
		return body.Result{}, fmt.Errorf("mcpbody: perceive: %w", err)
	}
	res, err := mcp.BodyResult(r)
	if err != nil {
		return body.Result{}, fmt.Errorf("mcpbody: perceive: %w", err)
	}
	if res.IsError {
		return body.Result{}, fmt.Errorf("mcpbody: perceive: %s reported an error: %s", b.perceive.Tool, firstLine(res.Text))
	}
	return res, nil
}

func (b *Body) currentRefs() *refMap {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refs
}

func (b *Body) setRefs(r *refMap) {
	b.mu.Lock()
	b.refs = r
	b.mu.Unlock()
}

// NormalizeHost is the host body's default normalization: the structured
// content when the tool gives any, else its text parsed as JSON, else its
// text as a list of lines (so that a listing's shape is a list).
//
// Structured content that only wraps the text ({"content": text}, as the
// reference filesystem server sends) says nothing more than the text, so
// the text is used.
func NormalizeHost(r body.Result) (any, error) {
	if r.Structured != nil && !wrapsText(r.Structured, r.Text) {
		return r.Structured, nil
	}
	if t := strings.TrimSpace(r.Text); t != "" && json.Valid([]byte(t)) {
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber() // numbers keep their digits
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		return v, nil
	}
	lines := []any{}
	for _, l := range strings.Split(strings.TrimRight(r.Text, "\n"), "\n") {
		lines = append(lines, strings.TrimRight(l, " \t\r"))
	}
	return map[string]any{"lines": lines}, nil
}

// wrapsText reports whether structured content is an object whose one
// member is the text.
func wrapsText(structured any, text string) bool {
	m, ok := structured.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	for _, v := range m {
		s, ok := v.(string)
		return ok && s == text
	}
	return false
}

// serverName puts a server's own name into the form traces accept:
// "Playwright" becomes "playwright", "secure-filesystem-server" stays.
func serverName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
