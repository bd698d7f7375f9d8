package main

import (
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/registry"
	"workbench/pkg/skill"
	"workbench/pkg/workbench"
)

// publishState is the export dialog's Publish: the copy redacted under
// the chosen profile (workbench.Export), signed with this browser's key
// and published to this workbench's registry (workbench.Publish), or the
// registry's refusal with its reasons.
type publishState struct {
	running bool
	err     error
	done    *workbench.Published
}

// publishable says why the chosen profile cannot be published, or "".
func publishable(profile string) string {
	if profile == skill.RedactionNone {
		return "A registry keeps only transcript_pii or full copies, never an unredacted transcript: choose one of them to publish."
	}
	return ""
}

func (p *skillPage) onPublish(ctx app.Context, e app.Event) {
	s := p.exp
	if p.pub.running || s.running || publishable(s.profile) != "" {
		return
	}
	p.pub = publishState{running: true}
	ctx = p.own()
	b := p.bundle
	ctx.Async(func() {
		var done *workbench.Published
		w := p.env.flows
		f, err := w.Export(ctx, b, s.profile, false)
		var c *registry.Client
		if err == nil {
			c, err = p.env.registryClient(p.env.origin())
		}
		if err == nil {
			if k, kerr := p.env.signer(ctx); kerr != nil {
				err = kerr
			} else {
				var pub workbench.Published
				pub, err = w.Publish(ctx, c, k, f.Data)
				done = &pub
			}
		}
		ctx.Dispatch(func(app.Context) {
			p.pub = publishState{err: err}
			if err == nil {
				p.pub.done = done
			}
		})
	})
}

// renderPublish is the Publish part of the export dialog.
func (p *skillPage) renderPublish() app.UI {
	s, why := p.pub, publishable(p.exp.profile)
	return app.Div().Class("publish").ID("publish").Body(
		app.H3().Text("Publish"),
		app.P().Text("Publishing redacts a copy under the profile above, signs it with this browser's signing key and sends it to this workbench's registry, which verifies it again and keeps it under its content hash. Anyone with the link can import it; whether they trust your key is theirs to decide."),
		app.If(why != "", func() app.UI { return app.P().Class("muted").ID("publish-why").Text(why) }),
		app.Button().Type("button").ID("export-publish").Class("secondary").Disabled(s.running || p.exp.running || why != "").
			Text("Sign and publish").OnClick(p.onPublish),
		app.If(s.running, func() app.UI {
			return app.P().Class("status status-pending").Text("Redacting, signing and publishing…")
		}),
		app.If(s.err != nil, func() app.UI { return renderPublishError(s.err) }),
		app.If(s.done != nil, func() app.UI {
			d := s.done
			e := d.Entry
			page := d.Link.ImportPage()
			return app.Div().Class("status status-ok").ID("publish-done").Role("status").Body(
				app.P().Text("Published to this workbench's registry. Send this link to import it:"),
				app.P().Body(app.A().ID("publish-link").Href(page).Text(page)),
				app.If(e.SignerKeyID != d.SignedBy, func() app.UI {
					return app.P().ID("publish-other-signer").Text("The registry already held this content signed by key " + e.SignerKeyID + ", and keeps that copy; yours was not stored.")
				}),
				app.If(e.Withdrawn(), func() app.UI {
					return app.P().ID("publish-withdrawn").Text("Its signer withdrew it at " + *e.WithdrawnAt + ".")
				}),
				app.Dl().Class("facts").Body(
					app.Dt().Text("Content hash"), app.Dd().Body(app.Code().Class("hash").ID("publish-hash").Text(e.ContentHash)),
					app.Dt().Text("Signed by key"), app.Dd().Body(app.Code().Class("hash").ID("publish-signer").Text(e.SignerKeyID)),
					app.Dt().Text("The registry's verdict"), app.Dd().ID("publish-verdict").Body(verdictBadge(e.Verdict), app.Text(" (re-derived by the registry when it was published)")),
				),
			)
		}),
	)
}

// renderPublishError says why nothing was published: the refusal's
// reasons, checked here or by the registry, each with its place.
func renderPublishError(err error) app.UI {
	var ref *registry.Refusal
	var ae *registry.APIError
	var problems []registry.Problem
	summary := "Not published: " + err.Error()
	switch {
	case errors.As(err, &ref):
		summary = "Not published: " + ref.Message + " (checked in this browser as the registry checks; nothing was sent)"
		problems = ref.Problems
	case errors.As(err, &ae):
		summary = "Not published: the registry answered " + ae.Message
		problems = ae.Problems
	}
	items := make([]app.UI, 0, len(problems))
	for _, pr := range problems {
		items = append(items, app.Li().Class("problem").Body(
			app.Code().Class("problem-pointer").Text(orText(pr.Pointer, "(bundle)")), app.Text(" "),
			app.Span().Class("problem-message").Text(pr.Message)))
	}
	return app.Div().Class("status status-error").ID("publish-error").Role("alert").Body(
		app.P().Text(summary),
		app.If(len(items) > 0, func() app.UI { return app.Ul().Class("problems").Body(items...) }),
	)
}
