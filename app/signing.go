package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/signature"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// keyring is the part of the library that keeps the trusted signers
// (package store/idb, in the keys object store). The browser's own signing
// key is a WebCrypto key, reached through signingKey and newSigningKey
// (library_wasm.go).
type keyring interface {
	TrustedSigners(ctx context.Context) (*signature.PinSet, error)
	TrustSigner(ctx context.Context, p signature.Pin) error
	DistrustSigner(ctx context.Context, keyID string) error
	// The skill registries the person added by hand (registries.go).
	Registries(ctx context.Context) ([]string, error)
	AddRegistry(ctx context.Context, origin string) error
	RemoveRegistry(ctx context.Context, origin string) error
}

// errNoKeyring: the library is not the browser's (the native build's
// memory store), which keeps no keys.
var errNoKeyring = errors.New("signing keys and trusted signers are kept only by the browser's library")

// errNoSigningKey: the export dialog was asked to sign before the browser
// had a signing key.
var errNoSigningKey = errors.New("this browser has no signing key yet: create one under Signing on the Import page")

// errKeyMismatch: a key to trust whose fingerprint is not its public
// key's.
var errKeyMismatch = errors.New("the fingerprint shown is not the public key's: nothing was trusted")

func keyringOf(st store.Store) (keyring, error) {
	kr, ok := st.(keyring)
	if !ok {
		return nil, errNoKeyring
	}
	return kr, nil
}

// signer is this browser's signing key, kept by the library.
func (e *env) signer(ctx context.Context) (signature.Signer, error) {
	st, err := e.store(ctx, nil)
	if err != nil {
		return nil, err
	}
	return signingKey(ctx, st)
}

// trustedSigners is the library's pin set, for the flows (Deps.Pins).
func (e *env) trustedSigners(ctx context.Context) (*signature.PinSet, error) {
	st, err := e.store(ctx, nil)
	if err != nil {
		return nil, err
	}
	kr, err := keyringOf(st)
	if err != nil {
		return nil, err
	}
	return kr.TrustedSigners(ctx)
}

// signedFact is the skill page's and import page's line about a report's
// signature: SignedText, loud when the signature is invalid.
func signedFact(r *verify.Report) app.UI {
	if r.Signature == verify.SignatureInvalid {
		return app.Strong().Class("status-error signature-invalid").Role("alert").Text(r.SignedText())
	}
	return app.Span().Class("signature-" + r.Signature).Text(r.SignedText())
}

// pinsFromInput reads what a person pastes to trust a signer: a pin set
// (the .pub.json workbench keygen writes, or the one this page offers),
// whose names are kept unless name is given for a set of one; or a bare
// base64 public key, which needs name.
func pinsFromInput(name, text string) ([]signature.Pin, error) {
	name, text = strings.TrimSpace(name), strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("paste a pin set or a public key")
	}
	if strings.HasPrefix(text, "{") {
		ps, err := signature.ParsePins([]byte(text))
		if err != nil {
			return nil, err
		}
		if len(ps.Signers) == 0 {
			return nil, errors.New("the pin set names no signer")
		}
		if name != "" && len(ps.Signers) == 1 {
			ps.Signers[0].Name = name
		}
		return ps.Signers, nil
	}
	if name == "" {
		return nil, errors.New("give the signer a name")
	}
	pub, err := signature.DecodeKey(text)
	if err != nil {
		return nil, err
	}
	return []signature.Pin{signature.NewPin(name, pub)}, nil
}

// ownPinSet is the pin set of the browser's key, as workbench verify
// --trust reads it.
func ownPinSet(s signature.Signer) (string, error) {
	b, err := json.MarshalIndent(signature.PinSet{Signers: []signature.Pin{signature.NewPin("workbench browser key", s.Public())}}, "", "  ")
	if err != nil {
		return "", fmt.Errorf("the browser key's pin set: %w", err)
	}
	return string(b) + "\n", nil
}

// signingState is the Signing section of the import page: the browser's
// signing key (made on request, never extractable) and its pin set, and
// the trusted signers, each a public key with a name.
type signingState struct {
	loaded bool
	key    signature.Signer // nil until one is made
	pinSet string           // the key's pin set, for workbench verify --trust
	pins   *signature.PinSet
	err    error // reading or writing the keys failed
	busy   bool

	trustName, trustText string
	trustErr             error
}

// loadSigning reads the signing key and the trusted signers. It blocks:
// call it from a goroutine.
func (e *env) loadSigning(ctx context.Context) signingState {
	s := signingState{loaded: true}
	st, err := e.store(ctx, nil)
	if err != nil {
		s.err = err
		return s
	}
	kr, err := keyringOf(st)
	if err != nil {
		s.err = err
		return s
	}
	if s.pins, err = kr.TrustedSigners(ctx); err != nil {
		s.err = err
		return s
	}
	s.key, err = signingKey(ctx, st)
	switch {
	case errors.Is(err, errNoSigningKey):
	case err != nil:
		s.err = err
	default:
		s.pinSet, s.err = ownPinSet(s.key)
	}
	return s
}

func (p *importPage) reloadSigning(ctx app.Context) {
	ctx.Async(func() {
		s := p.env.loadSigning(ctx)
		ctx.Dispatch(func(app.Context) { p.sign = s })
	})
}

func (p *importPage) onCreateKey(ctx app.Context, e app.Event) {
	if p.sign.busy || p.sign.key != nil {
		return
	}
	p.changeSigning(ctx, &p.sign.err, func() error {
		st, err := p.env.store(ctx, nil)
		if err == nil {
			_, err = newSigningKey(ctx, st)
		}
		return err
	})
}

// changeSigning makes change off the event loop, the signing panel busy
// meanwhile, then reads the panel again; when change fails, *why (a
// field of p.sign) says why.
func (p *importPage) changeSigning(ctx app.Context, why *error, change func() error) {
	p.sign.busy = true
	ctx.Async(func() {
		err := change()
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.sign.busy, *why = false, err
				return
			}
			p.reloadSigning(ctx)
		})
	})
}

func (p *importPage) onDownloadPin(ctx app.Context, e app.Event) {
	if err := download("workbench-browser-key.pub.json", []byte(p.sign.pinSet)); err != nil {
		p.sign.err = err
	}
}

func (p *importPage) onTrustName(ctx app.Context, e app.Event) {
	p.sign.trustName = recordTyped(ctx)
}

func (p *importPage) onTrustText(ctx app.Context, e app.Event) {
	p.sign.trustText = recordTyped(ctx)
}

func (p *importPage) onTrust(ctx app.Context, e app.Event) {
	e.PreventDefault()
	pins, err := pinsFromInput(p.sign.trustName, p.sign.trustText)
	if err != nil {
		p.sign.trustErr = err
		return
	}
	p.sign.trustErr = nil
	p.changeSigning(ctx, &p.sign.trustErr, func() error {
		return p.env.withKeyring(ctx, func(kr keyring) error {
			for _, pin := range pins {
				if err := kr.TrustSigner(ctx, pin); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func (p *importPage) onDistrust(keyID string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.changeSigning(ctx, &p.sign.err, func() error {
			return p.env.withKeyring(ctx, func(kr keyring) error { return kr.DistrustSigner(ctx, keyID) })
		})
	}
}

// withKeyring runs f on the library's keyring. It blocks: call it from a
// goroutine.
func (e *env) withKeyring(ctx context.Context, f func(keyring) error) error {
	st, err := e.store(ctx, nil)
	if err != nil {
		return err
	}
	kr, err := keyringOf(st)
	if err != nil {
		return err
	}
	err = f(kr)
	e.dropStore(err)
	return err
}

// renderSigning is the Signing section of the import page.
func (p *importPage) renderSigning() app.UI {
	s := p.sign
	var own app.UI
	switch {
	case !s.loaded:
		own = app.P().Class("muted").Text("Reading the keys…")
	case s.key == nil:
		own = app.P().Body(
			app.Text("This browser has no signing key. "),
			app.Button().Type("button").ID("signing-create").Disabled(s.busy || s.err != nil).
				Text("Create a signing key").OnClick(p.onCreateKey),
		)
	default:
		own = app.Div().ID("signing-own").Body(
			app.P().Body(app.Text("This browser's signing key: "), app.Code().ID("signing-key-id").Class("hash").Text(signature.KeyID(s.key.Public())),
				app.Text(". Its private half is a non-extractable WebCrypto key: it signs, but neither this page nor an export can read it. The export dialog signs with it when asked. To have the command line trust it, save its pin set and pass it to workbench verify --trust:")),
			app.Pre().ID("signing-pin").Text(s.pinSet),
			app.Button().Type("button").Class("secondary").ID("signing-pin-download").Text("Download the pin set").OnClick(p.onDownloadPin),
		)
	}
	var list app.UI = app.P().ID("trusted-none").Class("muted").Text("No trusted signers: a signed bundle reads \"signed by an unknown key\" until its key is trusted here.")
	if s.pins != nil && len(s.pins.Signers) > 0 {
		items := make([]app.UI, 0, len(s.pins.Signers))
		for _, pin := range s.pins.Signers {
			items = append(items, app.Li().Class("trusted-signer").Body(
				app.Strong().Class("trusted-name").Text(pin.Name), app.Text(" "),
				app.Code().Class("hash trusted-key-id").Text(pin.KeyID), app.Text(" "),
				app.Button().Type("button").Class("secondary").Text("Remove").Disabled(s.busy).OnClick(p.onDistrust(pin.KeyID)),
			))
		}
		list = app.Ul().ID("trusted-signers").Body(items...)
	}
	return app.Section().ID("signing").Aria("labelledby", "signing-heading").Body(
		app.H2().ID("signing-heading").Text("Signing"),
		own,
		app.H3().Text("Trusted signers"),
		app.P().Text("A signature reads as \"signed by\" a name only when its public key is one of these; a valid signature by any other key reads \"signed by an unknown key\", and one that does not verify is a failure."),
		list,
		app.Form().ID("trust-form").OnSubmit(p.onTrust).Body(
			app.Div().Class("field").Body(
				app.Label().For("trust-name").Text("Name"),
				app.Input().Type("text").ID("trust-name").Value(s.trustName).OnInput(p.onTrustName),
			),
			app.Div().Class("field").Body(
				app.Label().For("trust-key").Text("Pin set (a .pub.json from workbench keygen) or a base64 public key"),
				app.Textarea().ID("trust-key").Rows(4).Text(s.trustText).OnInput(p.onTrustText),
			),
			app.Button().Type("submit").ID("trust-add").Disabled(s.busy).Text("Trust"),
		),
		app.If(s.trustErr != nil, func() app.UI {
			return app.P().Class("status status-error").ID("trust-error").Role("alert").Text("Not trusted: " + errText(s.trustErr))
		}),
		app.If(s.err != nil, func() app.UI {
			return app.P().Class("status status-error").ID("signing-error").Role("alert").Text(errText(s.err))
		}),
	)
}
