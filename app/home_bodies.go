package main

import (
	"errors"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/body"
	"workbench/pkg/session"
)

// The home page's Body section: the three bodies, where each MCP body
// comes from (this computer when the tab is paired, else this
// workbench's relay) and what its server answered, the tab's answer to
// spec OQ-2, and "This computer".

// place is where the tab reaches the MCP body served under name, and
// whether it has one at all: the pairing first (the person's explicit
// choice, as env.bodyPlace decides), then the relay.
func (p *homePage) place(name string) (mcpPlace, bool) {
	if p.paired != nil {
		return pairedPlace(*p.paired), true
	}
	if slices.Contains(p.relay.names, name) {
		return relayPlace(p.env.origin()), true
	}
	return mcpPlace{}, false
}

func (p *homePage) renderBodies() app.UI {
	labels := map[body.Kind]string{body.KindSimulator: "Simulator", body.KindBrowser: "Browser", body.KindHost: "Host"}
	choices := make([]app.UI, 0, len(session.Bodies))
	for _, b := range session.Bodies {
		id := "body-" + string(b)
		_, available := p.place(bodyServer(b))
		choices = append(choices, app.Div().Class("choice body-choice").Body(
			app.Input().Type("radio").Name("body").ID(id).Value(string(b)).
				Checked(p.body == b).Disabled(b != body.KindSimulator && !available && p.body != b).
				Aria("describedby", id+"-note").OnChange(p.onBody(b)),
			app.Label().For(id).Class("body-label").Text(labels[b]),
			app.Div().ID(id+"-note").Class("choice-note").Body(p.renderBodyNote(b)),
		))
	}
	return app.Div().Body(
		app.Section().Class("panel").Aria("labelledby", "body-heading").Body(
			app.H2().ID("body-heading").Text("Body"),
			app.FieldSet().Body(append([]app.UI{app.Legend().Text("The agent acts through")}, choices...)...),
			&localPolicyPanel{env: p.env, Kind: p.body},
			p.renderRelay(),
		),
		p.pairPanel(),
	)
}

// pairPanel is "This computer", folded away when this workbench relays
// both bodies itself and the tab is not paired.
func (p *homePage) pairPanel() app.UI {
	return &pairingPanel{env: p.env, OnChange: p.onPairing,
		Folded: p.paired == nil && slices.Contains(p.relay.names, browserServer) && slices.Contains(p.relay.names, hostServer)}
}

// renderBodyNote says what a body is and, for an MCP body, where it is and
// what its server answered; nothing is assumed.
func (p *homePage) renderBodyNote(b body.Kind) app.UI {
	if b == body.KindSimulator {
		return app.Text("Always available: a deterministic world (web pages, files, a shell) running inside this page. No MCP server is called.")
	}
	name := bodyServer(b)
	what := map[body.Kind]string{body.KindBrowser: "A real Chromium, driven through Playwright MCP.", body.KindHost: "A folder the agent may list, read and write, through the reference filesystem server: file tools only, no shell."}[b]
	pl, ok := p.place(name)
	switch {
	case !ok && !p.relay.loaded && p.paired == nil:
		return app.Span().Body(app.Text(what+" "), app.Text("Checking which MCP servers this workbench relays…"))
	case !ok && p.relay.err != nil && !errors.Is(p.relay.err, errNoRelay):
		return app.Span().Body(app.Text(what+" Not available: the relay could not be asked ("), app.Span().Class("error-text").Text(p.relay.err.Error()), app.Text("); pair this computer below."))
	case !ok:
		return app.Span().ID(string(b) + "-unavailable").Text(what + " Not available yet: this workbench serves none, so pair this computer below (This computer).")
	}
	url := pl.endpoint(name)
	pr := p.probes[url]
	items := []app.UI{app.Text(what + " "), app.Text(map[bool]string{true: "On this computer (paired): ", false: "On this workbench: "}[p.paired != nil])}
	switch {
	case pr.running:
		items = append(items, app.Text("handshake running…"))
	case pr.err != nil:
		items = append(items, app.Span().ID(string(b)+"-state").Body(app.Text("unreachable: "), app.Span().Class("error-text").Text(pr.err.Error())))
	case pr.server != "":
		items = append(items, app.Span().ID(string(b)+"-state").Text("reachable: answered the MCP handshake as "+pr.server+" (protocol "+pr.proto+")"))
	}
	if b == body.KindHost {
		if f, ok := p.folders[url]; ok {
			if f.err != nil {
				items = append(items, app.Div().Body(app.Text("Its folder could not be asked: "), app.Span().Class("error-text").Text(f.err.Error())))
			} else {
				items = append(items, app.Div().Body(app.Text("The server says: "), app.Code().ID("host-folder").Class("wrap").Text(f.text)))
			}
		}
	}
	id := "trust-" + name
	items = append(items, app.Div().Class("choice").Body(
		app.Input().Type("checkbox").ID(id).Class("trust").Checked(p.mcp.trusts(name)).OnChange(p.onTrust(name)),
		app.Label().For(id).Text("trust "+name+"'s tool annotations (untrusted, every tool counts as a write)"),
	))
	if b == body.KindHost {
		items = append(items, p.renderPerceive())
	}
	return app.Span().Body(items...)
}

// renderPerceive is the host body's perceive call: the server's tool that
// shows what a skill changes (docs/bodies.md).
func (p *homePage) renderPerceive() app.UI {
	return app.Div().Class("field-row").Body(
		app.Label().For("host-perceive").Text("Host perceive tool"),
		app.Input().Type("text").ID("host-perceive").Value(p.mcp.Perceive).Attr("spellcheck", "false").OnChange(p.onPerceive(perceiveItem)),
		app.Label().For("host-perceive-args").Text("arguments (JSON)"),
		app.Input().Type("text").ID("host-perceive-args").Value(p.mcp.PerceiveArgs).Attr("spellcheck", "false").OnChange(p.onPerceive(perceiveArgItem)),
	)
}

// renderRelay lists the MCP servers the same-origin relay forwards to and
// what each answered: the bodies `workbench serve` started and any [&]
// service (delegatic-mcp, graphonomous-mcp, prism-eval) it names. A site
// that relays none says nothing here: its visitors pair their own
// computer instead, and what an operator configures is described in
// docs/proxy.md, not on this page.
func (p *homePage) renderRelay() app.UI {
	r := p.relay
	if !r.loaded || r.err != nil || len(r.names) == 0 {
		return app.If(false, nil)
	}
	pl := relayPlace(p.env.origin())
	items := make([]app.UI, 0, len(r.names))
	for _, n := range r.names {
		pr := p.probes[pl.endpoint(n)]
		var state app.UI
		switch {
		case pr.running:
			state = app.Text("handshake running…")
		case pr.err != nil:
			state = app.Span().Body(app.Text("unreachable: "), app.Span().Class("error-text").Text(pr.err.Error()))
		default:
			state = app.Text("reachable: answered the MCP handshake as " + pr.server + " (protocol " + pr.proto + ")")
		}
		items = append(items, app.Li().ID("relay-"+n).Body(app.Code().Text(n), app.Text(" — "), state))
	}
	return app.Div().ID("relay-servers").Class("choice-note").Body(
		app.P().Text("MCP servers this workbench relays:"),
		app.Ul().Body(items...),
	)
}
