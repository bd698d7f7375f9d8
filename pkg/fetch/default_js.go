//go:build js

package fetch

// Default returns the platform's Doer: in a browser, Browser.
func Default() Doer { return Browser{} }

// stopAtRedirects switches the Browser Doer to fetch's "manual" redirect
// mode.
func stopAtRedirects(d Doer) Doer {
	if b, ok := d.(Browser); ok {
		b.manualRedirects = true
		return b
	}
	return d
}
