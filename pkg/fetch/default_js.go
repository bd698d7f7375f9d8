//go:build js

package fetch

// Default returns the platform's Doer: in a browser, Browser.
func Default() Doer { return Browser{} }
