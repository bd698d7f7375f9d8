package main

import (
	"context"
	"errors"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/openrouter"
	"workbench/pkg/session"
)

// checkSessionKey asks OpenRouter, through the same-origin proxy, about
// key and records the answer in the session: accepted, or refused — and
// then no longer kept, so no page goes on with a key that cannot work. An
// error that is not a refusal (the network, a timeout) leaves the key
// unchecked. It waits on the network, so it runs on a goroutine.
func checkSessionKey(ctx context.Context, origin string, s *session.Storage, key string) (*openrouter.KeyInfo, error) {
	c, err := openrouter.New(key, openrouter.WithBaseURL(origin+openrouter.DefaultBaseURL))
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	info, err := c.Key(cctx)
	switch {
	case err == nil:
		if merr := s.MarkKey(key, session.KeyAccepted); merr != nil {
			return info, merr
		}
	case errors.Is(err, openrouter.ErrBadKey):
		if merr := s.MarkKey(key, session.KeyRefused); merr != nil {
			return nil, errors.Join(err, merr)
		}
	}
	return info, err
}

// keyStateText says what the session's key is, for the pages that run a
// model: the state, then what to do about it when it is not accepted.
func keyStateText(st session.KeyState, checking bool, checkErr error) (text string, ok bool) {
	switch {
	case st == session.KeyAccepted:
		return "kept for this tab, and OpenRouter accepted it.", true
	case st == session.KeyRefused:
		return "OpenRouter refused the key entered last (401), so it was not kept. Enter another on the home page.", false
	case st == session.KeyUnchecked && checking:
		return "kept for this tab; checking it with OpenRouter…", false
	case st == session.KeyUnchecked && checkErr != nil:
		return "kept for this tab, but not checked: the check failed (" + checkErr.Error() + ").", false
	case st == session.KeyUnchecked:
		return "kept for this tab, not checked yet.", false
	}
	return "none in this tab. Enter one on the home page.", false
}

// renderKeyState is the key's state as a line of its own, id'd for the
// page that shows it, with a link to the home page when there is
// something to do there. Unless the page needs the key, a key missing is
// not shown as an error.
func renderKeyState(id string, st session.KeyState, checking bool, checkErr error, needed bool) app.UI {
	text, ok := keyStateText(st, checking, checkErr)
	class := "key-state status status-error"
	switch {
	case !needed:
		class = "key-state status"
	case ok:
		class = "key-state status status-ok"
	case checking:
		class = "key-state status status-pending"
	}
	return app.P().ID(id).Class(class).Aria("live", "polite").Body(
		app.Strong().Text("OpenRouter key: "),
		app.Span().ID(id+"-text").Text(text),
		app.If(st == session.KeyNone || st == session.KeyRefused, func() app.UI {
			return app.Span().Body(app.Text(" "), app.A().Href("/").Text("Go to the home page"))
		}),
	)
}
