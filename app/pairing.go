package main

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/session"
)

// pairingPanel is "This computer" on the home page: how a visitor of the
// deployed workbench lends it the browser and the folder of their own
// machine. It shows the one command to run there (`make bodies`, which
// starts `workbench bodies` for this page's origin), takes the pairing
// secret the command prints, and checks it against the bodies server
// before the tab keeps it (session.Pairing). The page then talks MCP to
// that loopback address directly, never through the relay; the CSP's
// connect-src allows loopback and nothing else (docs/app-bodies.md).
type pairingPanel struct {
	app.Compo
	env *env

	// OnChange hears every change of the tab's pairing.
	OnChange func(ctx app.Context)
	// Folded shows the unpaired panel closed, under a summary: this
	// workbench already relays both bodies (make run), so pairing is
	// something a person opens, not the way in.
	Folded bool

	ownContext
	paired  *session.Pairing
	port    string // the port field's text
	pairing bool   // a check of the entered secret is running
	err     error
	field   string // the field err is about, for a *session.PairingError
	copied  bool
}

func (c *pairingPanel) OnMount(ctx app.Context) {
	c.keep(ctx)
	if p, ok := c.env.pairing(); ok {
		c.paired = &p
	}
	if c.port == "" {
		c.port = strconv.Itoa(session.DefaultPairingPort)
	}
}

// command is what the visitor runs in a clone of the workbench's
// repository: it installs what is missing (Chromium, the MCP servers'
// npm packages) and serves the two bodies for this page's origin only.
func (c *pairingPanel) command() string {
	cmd := "make bodies ORIGIN=" + c.env.origin()
	if p := strings.TrimSpace(c.port); p != "" && p != strconv.Itoa(session.DefaultPairingPort) {
		cmd += " PORT=" + p
	}
	return cmd
}

func (c *pairingPanel) onPort(ctx app.Context, e app.Event) {
	c.port = recordTyped(ctx)
	c.copied = false
}

// onCopy puts the command on the clipboard; where the browser refuses,
// the command stays on the page to select by hand.
func (c *pairingPanel) onCopy(ctx app.Context, e app.Event) {
	clip := app.Window().Get("navigator").Get("clipboard")
	if !clip.Truthy() {
		c.err, c.field = errors.New("this browser offers no clipboard to this page: select the command and copy it"), ""
		return
	}
	clip.Call("writeText", c.command())
	c.copied = true
}

// onPair checks the entered address and secret against the bodies
// server (its listing, which answers only its paired page) and keeps
// them for the tab when it answers with the bodies.
func (c *pairingPanel) onPair(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if c.pairing {
		return
	}
	secret := app.Window().GetElementByID("pair-secret").Get("value").String()
	p, err := session.CheckPairing(session.Pairing{Addr: "127.0.0.1:" + strings.TrimSpace(c.port), Secret: secret})
	if err != nil {
		c.showErr(err)
		return
	}
	c.pairing, c.err, c.field = true, nil, ""
	ui := c.own()
	ui.Async(func() {
		actx, cancel := context.WithTimeout(ui, 15*time.Second)
		defer cancel()
		names, err := pairedPlace(p).list(actx)
		if err == nil && !slices.Contains(names, browserServer) && !slices.Contains(names, hostServer) {
			err = errors.New("the server at " + p.Addr + " answered, but offers neither a browser nor a host body (it lists: " + strings.Join(names, ", ") + ")")
		}
		ui.Dispatch(func(ctx app.Context) {
			c.pairing = false
			if err != nil {
				c.err, c.field = reachErr(p.Addr, c.env.origin(), err), ""
				return
			}
			s, serr := c.env.sessionStorage()
			if serr == nil {
				serr = s.SetPairing(p)
			}
			if serr != nil {
				c.showErr(serr)
				return
			}
			if el := app.Window().GetElementByID("pair-secret"); el.Truthy() {
				el.Set("value", "")
			}
			c.paired = &p
			if c.OnChange != nil {
				c.OnChange(ctx)
			}
		})
	})
}

func (c *pairingPanel) showErr(err error) {
	c.err, c.field = err, ""
	var pe *session.PairingError
	if errors.As(err, &pe) {
		c.field = pe.Field
	}
}

// reachErr says what a failed pairing check most likely means. A server
// started for another origin refuses the browser's CORS preflight, and a
// fetch the browser refused tells the page nothing more than that it
// failed: that case reads as nothing answering, with the origin to check.
func reachErr(addr, origin string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "401") {
		return errors.New("the bodies server at " + addr + " refused the secret (401): copy the line after \"pairing secret:\" again; a restarted command prints a new one")
	}
	return errors.New("nothing answered this page at " + addr + " (" + msg + "). Is the command running, on this port, started with ORIGIN=" + origin +
		"? If the browser asked whether this site may connect to apps or devices on your network, allow it and pair again.")
}

func (c *pairingPanel) onUnpair(ctx app.Context, e app.Event) {
	s, err := c.env.sessionStorage()
	if err == nil {
		err = s.ForgetPairing()
	}
	if err != nil {
		c.showErr(err)
		return
	}
	c.paired, c.err, c.field = nil, nil, ""
	if c.OnChange != nil {
		c.OnChange(ctx)
	}
}

func (c *pairingPanel) Render() app.UI {
	if c.paired != nil {
		return app.Section().ID("pairing").Class("panel").Aria("labelledby", "pairing-heading").Body(
			app.H2().ID("pairing-heading").Text("This computer"),
			app.P().ID("pairing-state").Body(
				app.Text("Paired with the bodies on this computer at "), app.Code().Text(c.paired.Addr),
				app.Text(". The browser and host above are the ones `workbench bodies` serves there; this page talks to them directly, with the pairing secret, and they answer only this page."),
			),
			app.Button().Type("button").ID("pair-forget").Class("secondary").Text("Unpair this computer").OnClick(c.onUnpair),
			c.renderErr(),
		)
	}
	body := []app.UI{
		app.P().Text("Let the agent act through a real browser and a folder on the computer you are using. In a clone of the Skill Workbench repository (Go and Node.js needed; the command installs Chromium and the MCP servers when they are missing), run:"),
		app.Div().Class("field-row pair-command").Body(
			app.Code().ID("pair-command").Class("wrap").Text(c.command()),
			app.Button().Type("button").ID("pair-copy").Class("secondary").Text(map[bool]string{true: "Copied", false: "Copy"}[c.copied]).OnClick(c.onCopy),
		),
		app.P().Class("muted").Text("It starts Chromium (headless) through Playwright MCP and the reference filesystem server on its own workspace/ folder, answers only this page, and prints a line starting \"pairing secret:\". Paste what follows it here. Your browser may ask whether this site may connect to apps on this device: allow it, or the page cannot reach them."),
		app.Form().ID("pair-form").OnSubmit(c.onPair).Body(
			app.Div().Class("field-row").Body(
				app.Div().Class("field").Body(
					app.Label().For("pair-port").Text("Port"),
					pairDescribed(app.Input().Type("text").ID("pair-port").Attr("inputmode", "numeric").Value(c.port).OnInput(c.onPort), c.field == "addr"),
				),
				app.Div().Class("field").Body(
					app.Label().For("pair-secret").Text("Pairing secret (kept for this tab only)"),
					pairDescribed(app.Input().Type("password").ID("pair-secret").Attr("autocomplete", "off").Attr("spellcheck", "false"), c.field == "secret"),
				),
			),
			app.Button().Type("submit").ID("pair-submit").Disabled(c.pairing).Text("Pair"),
			app.If(c.pairing, func() app.UI {
				return app.P().Class("status status-pending").Role("status").Text("Asking the bodies server on this computer…")
			}),
		),
		c.renderErr(),
	}
	if c.Folded && c.err == nil {
		return app.Section().ID("pairing").Class("panel").Body(
			app.Details().ID("pairing-details").Body(append([]app.UI{
				app.Summary().ID("pairing-heading").Text("This computer: pair bodies from workbench bodies instead of this workbench's own"),
			}, body...)...),
		)
	}
	return app.Section().ID("pairing").Class("panel").Aria("labelledby", "pairing-heading").Body(
		append([]app.UI{app.H2().ID("pairing-heading").Text("This computer")}, body...)...,
	)
}

func pairDescribed(in app.HTMLInput, invalid bool) app.UI {
	if invalid {
		return in.Aria("invalid", "true").Aria("describedby", "pair-error")
	}
	return in
}

func (c *pairingPanel) renderErr() app.UI {
	return app.If(c.err != nil, func() app.UI {
		return app.P().ID("pair-error").Class("status status-error").Role("alert").Body(app.Span().Class("error-text").Text(c.err.Error()))
	})
}
