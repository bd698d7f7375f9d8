package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/mcp"
	"workbench/pkg/schemaform"
	"workbench/pkg/services"
	"workbench/pkg/store"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// paletteShared is the capability palette's state that outlives one
// page: the page context the current page published, the local Governor
// (built once, so its runs and approvals survive navigation), and the
// connected HTTP backend, if any. It is a field of env; every member is
// guarded by mu.
type paletteShared struct {
	mu sync.Mutex

	page schemaform.Context // what the page on screen knows

	local    *capability.Governor
	localErr error
	building chan struct{} // closed when the local build ends

	remote    *httpapi.Client // the connected HTTP backend; nil: local
	remoteURL string
}

// setPageContext publishes what the page on screen knows — the skill, the
// trace, the selected edge, a selection — for the palette to prefill forms
// with. The route is added by the palette itself. A page calls it from
// OnNav and again when its selection changes; the next form the palette
// opens uses it.
//
// An open palette hears of it (pageContextAction) and brings its form up
// to date, so a form opened before the page had read its skill does not
// keep the previous page's values.
func (e *env) setPageContext(ctx app.Context, c schemaform.Context) {
	e.palette.mu.Lock()
	e.palette.page = c
	e.palette.mu.Unlock()
	ctx.NewAction(pageContextAction)
}

// pageContextAction is posted when a page publishes its context.
const pageContextAction = "palette/page-context"

// pageContext returns what the current page published, with route as
// Route.
func (e *env) pageContext(route string) schemaform.Context {
	e.palette.mu.Lock()
	defer e.palette.mu.Unlock()
	c := e.palette.page
	c.Route = route
	return c
}

// clearPageContext forgets what the previous page published, when the
// route changes: a skill id from another page must not prefill a form.
func (e *env) clearPageContext() {
	e.palette.mu.Lock()
	defer e.palette.mu.Unlock()
	e.palette.page = schemaform.Context{}
}

// backendLocal names the in-browser backend in the UI.
const backendLocal = "local"

// backendName names the backend the palette talks to: the connected HTTP
// backend's origin, or backendLocal.
func (e *env) backendName() string {
	e.palette.mu.Lock()
	defer e.palette.mu.Unlock()
	if e.palette.remote != nil {
		return e.palette.remoteURL
	}
	return backendLocal
}

// paletteSkills bounds the skills a skill id field offers: the newest.
const paletteSkills = 200

// skillChoices lists the library's newest skills by name, for a skill id
// field to offer (schemaform.Context.Skills). A library that cannot be
// read offers none: the field is then typed into, and the backend judges
// the id.
func (e *env) skillChoices(ctx context.Context) []schemaform.Choice {
	st, err := e.store(ctx, nil)
	if err != nil {
		return nil
	}
	list, err := st.ListSkills(ctx, store.SkillQuery{Limit: paletteSkills})
	if err != nil {
		return nil
	}
	out := make([]schemaform.Choice, 0, len(list.Skills))
	for _, s := range list.Skills {
		label := s.Name
		if label == "" {
			label = s.Slug
		}
		out = append(out, schemaform.Choice{Value: s.ID, Label: fmt.Sprintf("%s (v%d)", label, s.Version)})
	}
	return out
}

// capabilityBackend returns the backend the palette talks to and its name:
// the connected HTTP backend, or the local Governor (built on first use).
// Call it from a goroutine: building the local one opens the library and
// asks the relay which MCP servers it reaches.
func (e *env) capabilityBackend(ctx context.Context) (capability.Backend, string, error) {
	e.palette.mu.Lock()
	if e.palette.remote != nil {
		defer e.palette.mu.Unlock()
		return e.palette.remote, e.palette.remoteURL, nil
	}
	if e.palette.local != nil {
		defer e.palette.mu.Unlock()
		return capability.Local{Governor: e.palette.local}, backendLocal, nil
	}
	wait := e.palette.building
	if wait == nil {
		wait = make(chan struct{})
		e.palette.building = wait
		go e.buildLocal(wait)
	}
	e.palette.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, backendLocal, ctx.Err()
	}
	e.palette.mu.Lock()
	defer e.palette.mu.Unlock()
	if e.palette.local == nil {
		err := e.palette.localErr
		e.palette.building = nil // the next call tries again
		return nil, backendLocal, err
	}
	return capability.Local{Governor: e.palette.local}, backendLocal, nil
}

// buildLocal makes the local Governor: the workbench's own actions over
// the library, the simulator's tools, and one provider per MCP server the
// same-origin relay forwards to. A part that cannot be had is that
// source's unavailability (a nil library makes the actions that need it
// unavailable, with the reason), never a stand-in.
func (e *env) buildLocal(done chan struct{}) {
	defer close(done)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var providers []capability.Provider

	wb := &capability.BuiltIn{
		MemoryProblem: errors.New("the palette does not connect to graphonomous-mcp; use the skill page's Memory panel"),
	}
	if st, err := e.store(ctx, nil); err == nil {
		wb.Store = st
	}
	if v, err := e.verify(); err == nil {
		wb.Verifier = v
	}
	if or, err := e.openRouterClient(); err == nil && or != nil {
		wb.Model = or
	}
	// The palette's actions call the tab's own flows: a palette replay
	// opens the skill's own body, as the replay page does (with no page
	// to read the tab's MCP settings from, by mcpSettingsOf's defaults).
	wb.Flows = e.flows
	providers = append(providers, wb)

	if names := fixtures.Worlds(); len(names) > 0 {
		if world, err := fixtures.World(names[0]); err == nil {
			if s, err := sim.New(world); err == nil {
				providers = append(providers, &capability.Body{Body: s, Trusted: true})
			}
		}
	}

	// The relay's servers: each is its own source, connecting on first
	// use, so a server that is down is that source's failure. A site with
	// no relay simply has no MCP source.
	if cfg, err := services.Discover(ctx, nil, e.origin(), nil); err == nil {
		for _, s := range capability.Servers(cfg, nil, nil, &mcp.Options{Timeout: 30 * time.Second, Revisions: &e.mcpRevisions}) {
			providers = append(providers, s)
		}
	}

	cat, err := capability.NewCatalog(providers...)
	e.palette.mu.Lock()
	defer e.palette.mu.Unlock()
	if err != nil {
		e.palette.localErr = fmt.Errorf("building the local catalog: %w", err)
		return
	}
	e.palette.local = capability.NewGovernor(context.Background(), cat, capability.GovernorOptions{AgentID: "workbench-palette"})
}

// connectBackend switches the palette to the HTTP backend at raw, which
// must be this page's own origin: the site's CSP allows connections to
// 'self' only, so any other origin would be refused by the browser. An
// empty raw switches back to the local backend.
func (e *env) connectBackend(raw string) error {
	e.palette.mu.Lock()
	defer e.palette.mu.Unlock()
	if raw == "" {
		e.palette.remote, e.palette.remoteURL = nil, ""
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", raw)
	}
	origin := u.Scheme + "://" + u.Host
	if origin != e.origin() {
		return fmt.Errorf("%s is another origin: this site's content security policy lets the page connect to %s only", origin, e.origin())
	}
	c, err := httpapi.New(origin, nil)
	if err != nil {
		return err
	}
	e.palette.remote, e.palette.remoteURL = c, origin
	return nil
}
