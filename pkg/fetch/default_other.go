//go:build !js

package fetch

import "net/http"

// Default returns the platform's Doer: natively, http.DefaultClient.
func Default() Doer { return http.DefaultClient }

// stopAtRedirects gives an *http.Client a CheckRedirect that returns the
// first redirect instead of following it, on a copy: the caller's client
// is not changed.
func stopAtRedirects(d Doer) Doer {
	c, ok := d.(*http.Client)
	if !ok || c == nil {
		return d
	}
	cp := *c
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}
