package main

import (
	"context"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/signature"
	"workbench/pkg/verify"
)

// Who signed a bundle, as the person's own trusted signers (the pin set in
// the library's keys store) have it: "trusted" only for a pinned key;
// otherwise the key's fingerprint and "not in your trusted signers", with
// one explicit action to pin it. Nothing a registry or a bundle says
// makes a signer trusted.

// signerText is the signer line's words for a report checked against the
// person's pins (workbench.Flows.CheckSignature).
func signerText(r *verify.Report) (text, class string, pinnable bool) {
	switch r.Signature {
	case verify.SignatureTrusted:
		return "trusted — " + r.Signer + " (key " + r.SignatureKeyID + ")", "signer-trusted", false
	case verify.SignatureUnknownKey:
		return "key " + r.SignatureKeyID + " — not in your trusted signers", "signer-unknown", true
	case verify.SignatureUnverified:
		if r.SignatureKeyID == "" {
			return "none that can be checked (the signature member is not a signature object)", "signer-none", false
		}
		return "key " + r.SignatureKeyID + " — not checked: your trusted signers could not be read", "signer-unknown", false
	case verify.SignatureInvalid:
		return "SIGNATURE INVALID: " + r.SignatureProblem, "signer-invalid", false
	}
	return "none: the bundle is not signed", "signer-none", false
}

// signerFact is the signer line for r, with the Trust action when its key
// can be pinned; onTrust opens the trust dialog for it.
func signerFact(r *verify.Report, onTrust func(keyID, publicKey string) app.EventHandler) app.UI {
	text, class, pinnable := signerText(r)
	pub, ok := r.SignerPublicKey()
	var line app.UI = app.Span().Class("signer " + class).Text(text)
	if class == "signer-invalid" {
		line = app.Strong().Class("signer status-error " + class).Role("alert").Text(text)
	}
	if !pinnable || !ok || onTrust == nil {
		return line
	}
	return app.Span().Body(line, app.Text(" "),
		app.Button().Type("button").Class("link-button signer-trust").Text("Trust this signer…").OnClick(onTrust(r.SignatureKeyID, pub)))
}

// pinning is the key the trust dialog (#trust-dialog) asks about.
type pinning struct {
	keyID, publicKey string
	name             string
	busy             bool
	err              error
}

// newPinning opens the dialog on a key, with a name the person may
// change: the start of its fingerprint.
func newPinning(keyID, publicKey string) pinning {
	short := strings.TrimPrefix(keyID, signature.KeyIDPrefix)
	if len(short) > 12 {
		short = short[:12]
	}
	return pinning{keyID: keyID, publicKey: publicKey, name: "signer " + short}
}

// trust pins p's key under its name. It blocks: call it from a goroutine.
func (e *env) trust(ctx context.Context, p pinning) error {
	pub, err := signature.DecodeKey(p.publicKey)
	if err != nil {
		return err
	}
	if signature.KeyID(pub) != p.keyID {
		return errKeyMismatch
	}
	return e.withKeyring(ctx, func(kr keyring) error { return kr.TrustSigner(ctx, signature.NewPin(strings.TrimSpace(p.name), pub)) })
}

// onName takes the name typed for the key.
func (p *pinning) onName(ctx app.Context, e app.Event) {
	p.name = recordTyped(ctx)
}

// onCancel closes the dialog; nothing is pinned.
func (p *pinning) onCancel(ctx app.Context, e app.Event) {
	*p = pinning{}
	closeTrustDialog()
}

// confirm pins the key p names, on the page ctx: Trust was pressed. On
// success it closes the dialog, forgets p and calls pinned; on failure
// the dialog stays open and says why.
func (p *pinning) confirm(ctx app.Context, e *env, pinned func(app.Context)) {
	if p.busy || p.keyID == "" {
		return
	}
	p.busy, p.err = true, nil
	asked := *p
	ctx.Async(func() {
		err := e.trust(ctx, asked)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.busy, p.err = false, err
				return
			}
			*p = pinning{}
			closeTrustDialog()
			pinned(ctx)
		})
	})
}

// showTrustDialog opens the trust dialog once it is rendered.
func showTrustDialog() {
	if d := app.Window().GetElementByID("trust-dialog"); d.Truthy() && !d.Get("open").Bool() {
		d.Call("showModal")
	}
}

// closeTrustDialog closes it.
func closeTrustDialog() {
	if d := app.Window().GetElementByID("trust-dialog"); d.Truthy() && d.Get("open").Bool() {
		d.Call("close")
	}
}

// renderTrustDialog asks the person to trust p's key: its fingerprint in
// full, a name for it, and one button. Nothing is pinned until it is
// pressed.
func renderTrustDialog(p pinning, onName, onCancel, onConfirm app.EventHandler) app.UI {
	return app.Dialog().ID("trust-dialog").Aria("labelledby", "trust-dialog-title").Aria("describedby", "trust-dialog-text").Body(
		app.H2().ID("trust-dialog-title").Text("Trust this signer?"),
		app.P().ID("trust-dialog-text").Text("Bundles signed by this key will read as \"trusted\" in this browser, under the name you give it. Check the fingerprint with its owner by another way than the bundle or the registry you got it from."),
		app.P().Body(app.Text("Fingerprint: "), app.Code().ID("trust-dialog-key").Class("hash").Text(p.keyID)),
		app.Div().Class("field").Body(
			app.Label().For("trust-dialog-name").Text("Name"),
			app.Input().Type("text").ID("trust-dialog-name").Value(p.name).OnInput(onName),
		),
		app.If(p.err != nil, func() app.UI {
			return app.P().Class("status status-error").Role("alert").ID("trust-dialog-error").Body(
				app.Text("Not trusted: "), app.Span().Class("error-text").Text(errText(p.err)))
		}),
		app.Div().Class("dialog-actions").Body(
			app.Button().Type("button").ID("trust-dialog-cancel").Class("secondary").Text("Cancel").OnClick(onCancel),
			app.Button().Type("button").ID("trust-dialog-confirm").Disabled(p.busy || strings.TrimSpace(p.name) == "").Text("Trust this signer").OnClick(onConfirm),
		),
	)
}
