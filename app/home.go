package main

import (
	"errors"
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/body"
	"workbench/pkg/openrouter"
	"workbench/pkg/session"
	"workbench/pkg/words"
)

// homePage is the landing page (/): what the workbench is, the session's
// OpenRouter key (kept in sessionStorage only, checked against the proxy's
// GET /key) and the body to work with.
type homePage struct {
	app.Compo
	env *env

	keyInput string // the field's text as its last input event read it; see clearKeyField
	hasKey   bool
	refused  bool // OpenRouter refused the key entered last, so none is kept
	check    keyCheck
	checkSeq latest // the newest key check: an older one answering late is not shown
	storeErr string // sessionStorage refused a read or write

	body    body.Kind
	relay   relayStatus
	paired  *session.Pairing  // the tab's pairing with this computer's bodies
	probes  map[string]probe  // by MCP endpoint: the relay's servers and the paired bodies
	folders map[string]folder // by MCP endpoint: the folders a host body's file tools reach
	mcp     mcpSettings       // trust and the host's perceive tool (services.go)
}

// folder is what a host body said of the folders it reaches.
type folder struct {
	text string
	err  error
}

// keyCheck is the state of the key check. Exactly one of the fields
// describes it: nothing checked yet, a check running, its answer, or its
// error, shown as it came.
type keyCheck struct {
	running bool
	info    *openrouter.KeyInfo
	err     error
}

// relayStatus is what GET /api/mcp/ said.
type relayStatus struct {
	loaded bool
	names  []string
	err    error
}

// probe is the result of an MCP handshake with one relayed server.
type probe struct {
	running bool
	server  string // serverInfo name and version, on success
	proto   string
	err     error
}

func (p *homePage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Skill Workbench")
	s, err := p.env.sessionStorage()
	if err != nil {
		p.storeErr = err.Error()
		return
	}
	if st, err := s.KeyState(); err == nil {
		p.refused = st == session.KeyRefused
	}
	if key, ok, err := s.Key(); err != nil {
		p.storeErr = err.Error()
	} else if ok {
		p.hasKey = true
		p.checkKey(ctx, key)
	}
	// The session's body is the simulator until the user picks another;
	// keeping it at once lets every page read the same choice.
	if b, err := s.Body(); err != nil {
		p.storeErr = err.Error()
	} else if err := s.SetBody(b); err != nil {
		p.storeErr = err.Error()
	} else {
		p.body = b
	}
	p.mcp = readMCPSettings(ctx)
	p.probes, p.folders = map[string]probe{}, map[string]folder{}
	p.loadRelay(ctx)
	p.probePaired(ctx)
}

// onPairing takes a new pairing, or its end, and asks the paired bodies
// what they are.
func (p *homePage) onPairing(ctx app.Context) {
	p.probePaired(ctx)
}

// probePaired reads the tab's pairing and, when there is one, performs
// the MCP handshake with both bodies on this computer.
func (p *homePage) probePaired(ctx app.Context) {
	p.paired = nil
	pa, ok := p.env.pairing()
	if !ok {
		return
	}
	p.paired = &pa
	pl := pairedPlace(pa)
	for _, n := range []string{browserServer, hostServer} {
		p.probeServer(ctx, pl, n)
	}
}

// onTrust marks a relayed server trusted or not for this tab (DESIGN §7:
// untrusted by default); the bodies read it when they connect.
func (p *homePage) onTrust(name string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		on := ctx.JSSrc().Get("checked").Bool()
		t := slices.DeleteFunc(slices.Clone(p.mcp.Trusted), func(n string) bool { return n == name })
		if on {
			t = append(t, name)
		}
		if err := ctx.SessionStorage().Set(trustedItem, t); err != nil {
			p.storeErr = err.Error()
			return
		}
		p.mcp.Trusted = t
	}
}

// onPerceive keeps the host body's perceive tool or its arguments.
func (p *homePage) onPerceive(item string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		v := recordTyped(ctx)
		if err := ctx.SessionStorage().Set(item, v); err != nil {
			p.storeErr = err.Error()
			return
		}
		p.mcp = readMCPSettings(ctx)
	}
}

// checkKey asks OpenRouter, through the same-origin proxy, about key and
// records the answer in the session (checkSessionKey): a refused key is
// not kept.
func (p *homePage) checkKey(ctx app.Context, key string) {
	p.check = keyCheck{running: true}
	origin := p.env.origin()
	s, err := p.env.sessionStorage()
	if err != nil {
		p.check = keyCheck{err: err}
		return
	}
	seq := p.checkSeq.next()
	ctx.Async(func() {
		info, err := checkSessionKey(ctx, origin, s, key)
		ctx.Dispatch(func(app.Context) {
			if !p.checkSeq.is(seq) {
				return
			}
			p.check = keyCheck{info: info, err: err}
			if st, serr := s.KeyState(); serr == nil {
				p.hasKey = st == session.KeyAccepted || st == session.KeyUnchecked
			}
		})
	})
}

func (p *homePage) loadRelay(ctx app.Context) {
	pl := relayPlace(p.env.origin())
	ctx.Async(func() {
		names, err := pl.list(ctx)
		ctx.Dispatch(func(ctx app.Context) {
			p.relay = relayStatus{loaded: true, names: names, err: err}
			for _, n := range names {
				p.probeServer(ctx, pl, n)
			}
		})
	})
}

// probeServer performs the MCP handshake with the server called name at
// pl, and for a host body asks which folder it reaches.
func (p *homePage) probeServer(ctx app.Context, pl mcpPlace, name string) {
	url := pl.endpoint(name)
	p.probes[url] = probe{running: true}
	ctx.Async(func() {
		info, err := pl.probe(ctx, name, &p.env.mcpRevisions)
		var f folder
		if err == nil && name == hostServer {
			f.text, f.err = pl.folders(ctx, name, &p.env.mcpRevisions)
		}
		ctx.Dispatch(func(app.Context) {
			pr := probe{err: err}
			if err == nil {
				pr.server = info.ServerInfo.Name + " " + info.ServerInfo.Version
				pr.proto = info.ProtocolVersion
				if name == hostServer {
					p.folders[url] = f
				}
			}
			p.probes[url] = pr
		})
	})
}

func (p *homePage) onKeyInput(ctx app.Context, e app.Event) {
	p.keyInput = ctx.JSSrc().Get("value").String()
}

func (p *homePage) onKeySubmit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	s, err := p.env.sessionStorage()
	if err != nil {
		p.storeErr = err.Error()
		return
	}
	if err := s.SetKey(p.keyInput); err != nil {
		p.check = keyCheck{err: err}
		return
	}
	key, _, err := s.Key()
	if err != nil {
		p.storeErr = err.Error()
		return
	}
	p.keyInput, p.hasKey, p.storeErr = "", true, ""
	clearKeyField()
	p.checkKey(ctx, key)
}

// clearKeyField empties the key field on the page. The field is not
// bound to keyInput in Render: go-app writes a bound value into the
// element after the input event's handler ran, and a key pressed in
// between (typing fast, or a loaded machine) would be overwritten by the
// value the handler read — a character silently lost from a password
// field. So the page writes the field only when it empties it.
func clearKeyField() {
	if el := app.Window().GetElementByID("key"); el.Truthy() {
		el.Set("value", "")
	}
}

func (p *homePage) onForget(ctx app.Context, e app.Event) {
	s, err := p.env.sessionStorage()
	if err == nil {
		err = s.ForgetKey()
	}
	if err != nil {
		p.storeErr = err.Error()
		return
	}
	p.checkSeq.next() // a check still running is of the forgotten key
	p.hasKey, p.check, p.keyInput = false, keyCheck{}, ""
	clearKeyField()
}

func (p *homePage) onBody(b body.Kind) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		s, err := p.env.sessionStorage()
		if err == nil {
			err = s.SetBody(b)
		}
		if err != nil {
			p.storeErr = err.Error()
			return
		}
		p.body = b
	}
}

func (p *homePage) Render() app.UI {
	return frame("/",
		app.H1().Text("Skill Workbench"),
		app.P().Class("lead").Text("Show an agent a multi-step task once, get a portable skill back, and replay it against new inputs."),
		app.P().Text("A skill here is not valid because a model says it worked. It is valid when a replay produces a report whose evidence passes declared checks: every action authorized by a policy, every state change hashed, every capability declared. Skills live in this browser (IndexedDB) and leave it only as files you download."),
		app.P().Text("You bring an OpenRouter API key. It stays in this tab's session storage, goes only to this site's proxy for OpenRouter, and is gone when you close the tab."),
		app.If(p.storeErr != "", func() app.UI {
			return app.P().Class("status status-error").Role("alert").Body(
				app.Text("Session storage: "), app.Span().Class("error-text").Text(p.storeErr))
		}),
		p.renderKey(),
		p.renderBodies(),
	)
}

func (p *homePage) renderKey() app.UI {
	return app.Section().Class("panel").Aria("labelledby", "key-heading").Body(
		app.H2().ID("key-heading").Text("OpenRouter key"),
		app.Form().ID("key-form").OnSubmit(p.onKeySubmit).Body(
			app.Div().Class("field").Body(
				app.Label().For("key").Text("API key (kept for this tab only)"),
				app.Div().Class("field-row").Body(
					app.Input().Type("password").ID("key").Name("key").
						AutoComplete(false).Attr("autocomplete", "off").Attr("spellcheck", "false").
						Placeholder("sk-or-v1-…").OnInput(p.onKeyInput),
					app.Button().Type("submit").ID("key-check").Text("Check and keep key"),
					app.If(p.hasKey, func() app.UI {
						return app.Button().Type("button").ID("key-forget").Class("secondary").Text("Forget key").OnClick(p.onForget)
					}),
				),
			),
		),
		app.Div().ID("key-status").Aria("live", "polite").Body(p.renderKeyStatus()),
	)
}

func (p *homePage) renderKeyStatus() app.UI {
	c := p.check
	switch {
	case c.running:
		return app.P().Class("status status-pending").Text("Checking the key with OpenRouter…")
	case c.err != nil:
		return app.Div().Class("status status-error").Role("alert").Body(
			app.P().Text(keyErrorSummary(c.err)),
			app.P().Class("error-text").ID("key-error").Text(c.err.Error()),
		)
	case c.info != nil:
		return app.Div().Class("status status-ok").Body(
			app.P().Text("OpenRouter accepted the key."),
			app.Dl().Class("facts").Body(
				app.Dt().Text("Label"), app.Dd().ID("key-label").Text(c.info.Label),
				app.Dt().Text("Limit"), app.Dd().ID("key-limit").Text(dollarsOrNone(c.info.Limit, "no limit")),
				app.Dt().Text("Remaining"), app.Dd().ID("key-remaining").Text(dollarsOrNone(c.info.LimitRemaining, "no limit")),
				app.Dt().Text("Usage"), app.Dd().ID("key-usage").Text(dollars(c.info.Usage)),
				app.Dt().Text("Tier"), app.Dd().Text(map[bool]string{true: "free", false: "paid"}[c.info.IsFreeTier]),
			),
		)
	case p.hasKey:
		return app.P().Class("status").Text("A key is kept for this tab.")
	case p.refused:
		return app.P().ID("key-refused").Class("status status-error").Text("OpenRouter refused the key entered last, so this tab keeps none. Enter another to teach or replay with a model.")
	}
	return app.P().Class("status").Text("No key yet. The simulator body works without one; teaching and replaying with a model need it.")
}

// keyErrorSummary says in a sentence what a failed check means; the exact
// error is shown under it.
func keyErrorSummary(err error) string {
	var api *openrouter.APIError
	switch {
	case errors.Is(err, session.ErrEmptyKey):
		return "Enter a key first."
	case errors.Is(err, openrouter.ErrBadKey):
		return "OpenRouter refused the key (401), so it was not kept. Enter another."
	case errors.As(err, &api):
		return "The key check failed with HTTP " + strconv.Itoa(api.Status) + "."
	}
	return "The key could not be checked."
}

func dollars(v float64) string { return words.USD(v) }

func dollarsOrNone(v *float64, none string) string {
	if v == nil {
		return none
	}
	return dollars(*v)
}
