package main

import (
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/render"
	"workbench/pkg/session"
)

// env is what the pages share: made once in main and handed to every
// page's component by its route factory (never a package variable), so a
// test can build a page with an env of its own.
//
// The OpenRouter key lives in the session Storage only (sessionStorage in
// the browser); env never copies it anywhere else.
type env struct {
	// session is the tab's sessionStorage; nil when the browser refused it,
	// with sessionErr saying why.
	session    *session.Storage
	sessionErr error
	// markdown renders untrusted text (model output, bundle strings).
	markdown *render.Renderer
}

func newEnv() *env {
	s, err := session.Open()
	return &env{session: s, sessionErr: err, markdown: render.New()}
}

// sessionStorage returns the tab's session storage, or why there is none.
func (e *env) sessionStorage() (*session.Storage, error) {
	if e.session == nil {
		if e.sessionErr == nil {
			return nil, errors.New("session storage is not available")
		}
		return nil, e.sessionErr
	}
	return e.session, nil
}

// origin is the page's own origin (scheme://host[:port]), the base of
// every request the app makes: the proxy, the MCP relay, nothing else.
func (e *env) origin() string {
	u := app.Window().URL()
	return u.Scheme + "://" + u.Host
}
