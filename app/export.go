package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/redact"
	"workbench/pkg/signature"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// exportState is the export dialog (spec §7.3, §7.5): the redaction
// profile, pre-selected by workbench.AdviseExport (transcript_pii or the
// stored bundle's stricter profile, never silently none); the secret
// warning; the confirmation that exporting secrets under none needs; and
// what was downloaded.
type exportState struct {
	open      bool
	profile   string
	confirmed bool
	advice    workbench.ExportAdvice
	running   bool
	err       error
	file      *workbench.ExportFile
	// sign asks for the file to be signed with the browser's signing
	// key (opt-in); signedBy is that key's id once it was.
	sign     bool
	signedBy string
}

// newExportState opens the dialog on the advised profile.
func newExportState(a workbench.ExportAdvice) exportState {
	return exportState{profile: a.Profile, advice: a}
}

func (p *skillPage) onExportOpen(ctx app.Context, e app.Event) {
	p.exp.open, p.exp.err, p.exp.file = true, nil, nil
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID("export-heading"); el.Truthy() {
			el.Call("focus")
		}
	})
}

func (p *skillPage) onExportClose(ctx app.Context, e app.Event) {
	p.exp.open = false
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID("export-open"); el.Truthy() {
			el.Call("focus")
		}
	})
}

func (p *skillPage) onExportProfile(profile string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.exp.profile, p.exp.err, p.exp.file = profile, nil, nil
		if !p.pub.running {
			p.pub = publishState{}
		}
	}
}

func (p *skillPage) onExportSign(ctx app.Context, e app.Event) {
	p.exp.sign = ctx.JSSrc().Get("checked").Bool()
	p.exp.err = nil
}

func (p *skillPage) onExportConfirm(ctx app.Context, e app.Event) {
	p.exp.confirmed = ctx.JSSrc().Get("checked").Bool()
	p.exp.err = nil
}

// needsConfirm: exporting secrets verbatim needs the user's explicit yes.
func (s exportState) needsConfirm() bool {
	return s.advice.NeedsConfirm(s.profile)
}

func (p *skillPage) onExportDownload(ctx app.Context, e app.Event) {
	e.PreventDefault()
	s := p.exp
	if s.running || s.needsConfirm() && !s.confirmed {
		return
	}
	p.exp.running, p.exp.err, p.exp.file, p.exp.signedBy = true, nil, nil, ""
	ctx = p.own()
	b := p.bundle
	ctx.Async(func() {
		var signedBy string
		f, err := p.env.flows.Export(ctx, b, s.profile, s.confirmed)
		if err == nil && s.sign {
			signedBy, err = p.env.signFile(ctx, f)
		}
		if err == nil {
			err = download(f.Name, f.Data)
		}
		ctx.Dispatch(func(app.Context) {
			p.exp.running, p.exp.err, p.exp.file, p.exp.signedBy = false, err, f, signedBy
		})
	})
}

// renderExport is the export dialog, shown in place (a non-modal dialog
// that keeps the page around it usable from the keyboard).
func (p *skillPage) renderExport() app.UI {
	s := p.exp
	if !s.open {
		return app.Text("")
	}
	labels := map[string]string{
		skill.RedactionNone:          "none — verbatim: the transcript and every body output as recorded",
		skill.RedactionTranscriptPII: "transcript_pii — strip free-text transcript content; keep shapes, hashes and events",
		skill.RedactionFull:          "full — keep only hashes, event types and scores",
	}
	radios := make([]app.UI, 0, 3)
	for _, prof := range redact.Profiles() {
		id := "export-profile-" + prof
		radios = append(radios, app.Div().Class("choice").Body(
			app.Input().Type("radio").Name("export-profile").ID(id).Value(prof).
				Checked(s.profile == prof).Disabled(!s.advice.Offered(prof)).
				OnChange(p.onExportProfile(prof)),
			app.Label().For(id).Text(labels[prof]),
		))
	}
	canDownload := !s.running && (!s.needsConfirm() || s.confirmed)
	return app.Section().Class("panel export-dialog").ID("export-dialog").Role("dialog").
		Aria("labelledby", "export-heading").Body(
		app.H2().ID("export-heading").TabIndex(-1).Text("Export bundle"),
		app.If(s.advice.Secrets.Found(), func() app.UI {
			return app.Div().Class("status status-error").ID("export-secrets").Role("alert").Body(
				app.P().Text("This bundle holds strings that look like secrets (" +
					strings.Join(s.advice.Secrets.Kinds, ", ") + "): " +
					words.Count(s.advice.Secrets.Findings, "finding") + " in " + words.Count(s.advice.Secrets.Strings, "string") +
					". " + strings.Join(s.advice.RemovedBy, " and ") + " remove them, and " + s.advice.Profile +
					" is pre-selected; exporting them verbatim needs your explicit confirmation."),
			)
		}).Else(func() app.UI {
			return app.P().Class("muted").ID("export-secrets").Text("No string in this bundle looks like a secret (API keys, JWTs, AWS keys, private keys). transcript_pii is still the default: choosing none is yours to make.")
		}),
		app.If(redact.ProfileRank(s.advice.Floor) > 0, func() app.UI {
			return app.P().ID("export-floor").Text("This bundle is stored already redacted as " + s.advice.Floor +
				": what that stripped cannot be put back, so no weaker profile is offered.")
		}),
		app.Form().ID("export-form").OnSubmit(p.onExportDownload).Body(
			app.FieldSet().Body(append([]app.UI{app.Legend().Text("Redaction profile")}, radios...)...),
			app.P().ID("export-chosen").Body(app.Text("Chosen profile: "), app.Strong().Text(s.profile),
				app.Text(". The downloaded bundle's header records it in evidence.redaction_profile, and its content hash is computed after redaction.")),
			app.Div().Class("choice").Body(
				app.Input().Type("checkbox").ID("export-sign").Checked(s.sign).OnChange(p.onExportSign),
				app.Label().For("export-sign").Text("Sign the file with this browser's signing key (Ed25519, over its content hash; the key is made under Signing on the Import page)."),
			),
			app.If(s.needsConfirm(), func() app.UI {
				return app.Div().Class("choice").Body(
					app.Input().Type("checkbox").ID("export-confirm").Checked(s.confirmed).OnChange(p.onExportConfirm),
					app.Label().For("export-confirm").Text("I understand the file will contain the strings that look like secrets, verbatim."),
				)
			}),
			app.Div().Class("dialog-actions").Body(
				app.Button().Type("button").Class("secondary").ID("export-close").Text("Close").OnClick(p.onExportClose),
				app.Button().Type("submit").ID("export-download").Disabled(!canDownload).
					// The file is named after the redacted copy's slug, which only
					// the export flow knows: the name is shown once it is made.
					Text("Redact, verify and download"),
			),
		),
		app.If(s.running, func() app.UI {
			return app.P().Class("status status-pending").Text("Redacting, re-sealing and verifying the copy…")
		}),
		p.renderPublish(),
		app.If(s.err != nil, func() app.UI {
			return app.Div().Class("status status-error").ID("export-error").Role("alert").Body(
				app.P().Text(exportErrorSummary(s.err)),
				app.P().Class("error-text").Text(errText(s.err)),
			)
		}),
		app.If(s.file != nil && s.err == nil, func() app.UI {
			f := s.file
			return app.Div().Class("status status-ok").ID("export-done").Role("status").Body(
				app.P().Body(app.Text("Downloaded "), app.Code().ID("export-filename").Text(f.Name), app.Text(".")),
				app.Dl().Class("facts").Body(
					app.Dt().Text("Redaction profile"), app.Dd().ID("export-done-profile").Text(f.Profile),
					app.Dt().Text("Content hash"), app.Dd().Body(app.Code().Class("hash").ID("export-done-hash").Text(f.ContentHash)),
					app.Dt().Text("Fields stripped"), app.Dd().Text(words.Count(len(f.Redaction.FieldsStripped), "field")),
					app.Dt().Text("Redaction gate"), app.Dd().ID("export-done-redaction").Body(redactionGateText(f.Report)),
					app.Dt().Text("Verdict of the file"), app.Dd().ID("export-done-verdict").Body(verdictBadge(f.Report.Verdict)),
					app.Dt().Text("Signed"), app.Dd().ID("export-done-signed").Text(signedByText(s.signedBy)),
				),
			)
		}),
	)
}

// redactionGateText is the copy's gate.redaction_verify as re-derived, and
// the claim of the proof inside the file when the two differ: the file's
// proof is a claim (DESIGN §6), and a reader should see where it is not
// what the evidence supports.
func redactionGateText(r *verify.Report) app.UI {
	derived, _ := r.Derived.Gate(skill.GateRedactionVerify)
	claimed, _ := r.Claimed.Gate(skill.GateRedactionVerify)
	out := app.Span().Body(verdictBadge(derived.Verdict), app.Text(" "+derived.Reason))
	if claimed.Verdict == derived.Verdict {
		return out
	}
	return app.Span().Body(out, app.P().Class("status status-error").ID("export-done-redaction-claim").Text(
		"The file's proof claims "+orText(claimed.Verdict, "no verdict")+" for this gate; re-derived from the file it is "+derived.Verdict+". The verdict above is the re-derived one."))
}

// signedByText says how the exported file was signed.
func signedByText(keyID string) string {
	if keyID == "" {
		return "no"
	}
	return "by this browser's key " + keyID
}

// signFile signs the exported file f in place with the browser's
// signing key and returns the key's id. It blocks: call it from a
// goroutine.
func (e *env) signFile(ctx context.Context, f *workbench.ExportFile) (string, error) {
	st, err := e.store(ctx, nil)
	if err != nil {
		return "", err
	}
	k, err := signingKey(ctx, st)
	if err != nil {
		return "", fmt.Errorf("signing: %w", err)
	}
	data, err := signature.Sign(ctx, k, f.Data)
	if err != nil {
		return "", err
	}
	f.Data = data
	return signature.KeyID(k.Public()), nil
}

func exportErrorSummary(err error) string {
	if errors.Is(err, workbench.ErrSecrets) {
		return "Not exported: the bundle holds secrets and exporting them verbatim was not confirmed."
	}
	return "Not exported: nothing was downloaded."
}
