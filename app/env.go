package main

import (
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
}

func newEnv() *env {
	s, err := session.Open()
	return &env{session: s, sessionErr: err}
}
