package fetch

import (
	"fmt"
	"io"
	"net/http"
)

// RedirectError is a redirect that a Doer from NoRedirects did not follow.
type RedirectError struct {
	// Status is the redirect's status: 301, 302, 303, 307 or 308, or 0 in
	// a browser, which hides a redirect's status and target from the page
	// (fetch's "opaqueredirect" response).
	Status int
	// Location is where the server pointed, resolved against the request
	// URL and cut to maxLocation bytes; empty when the browser hides it.
	Location string
}

// maxLocation bounds how much of a server's Location an error quotes.
const maxLocation = 200

func (e *RedirectError) Error() string {
	s := "redirected"
	if e.Status != 0 {
		s += fmt.Sprintf(" (%d %s)", e.Status, http.StatusText(e.Status))
	} else {
		s += " (the browser hides the status and the target)"
	}
	if e.Location != "" {
		s += " to " + e.Location
	}
	return s + "; not followed: it would resend the request's credentials"
}

// NoRedirects returns a Doer that sends requests through d and follows no
// redirect: an answer of 301, 302, 303, 307 or 308 is an error wrapping a
// *RedirectError (its body closed), so that a server cannot have
// Authorization, or any other header the request carries, resent to a
// place the caller did not choose. net/http, for one, resends
// Authorization to another port of the same host.
//
// d must not follow the redirect itself: an *http.Client is copied with a
// CheckRedirect that stops at the first (natively; under js/wasm
// net/http's own fetch follows before CheckRedirect is asked), the
// Browser Doer is switched to fetch's "manual" redirect mode, and any
// other Doer is trusted to return redirects rather than follow them.
func NoRedirects(d Doer) Doer {
	if n, ok := d.(noRedirects); ok {
		return n
	}
	return noRedirects{d: stopAtRedirects(d)}
}

type noRedirects struct{ d Doer }

func (n noRedirects) Do(req *http.Request) (*http.Response, error) {
	resp, err := n.d.Do(req)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return resp, nil
	}
	e := &RedirectError{Status: resp.StatusCode, Location: resp.Header.Get("Location")}
	if u, err := resp.Location(); err == nil {
		e.Location = u.String()
	}
	if len(e.Location) > maxLocation {
		e.Location = e.Location[:maxLocation] + "…"
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	return nil, fmt.Errorf("fetch: %s %s: %w", method(req), req.URL, e)
}

func method(req *http.Request) string {
	if req.Method == "" {
		return http.MethodGet
	}
	return req.Method
}
