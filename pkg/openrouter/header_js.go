//go:build js

package openrouter

import "net/http"

// platformHeaders adds nothing: fetch sends no User-Agent a page controls.
// The fetch options net/http reads from pseudo-headers (js.fetch:…) are
// deliberately not used: where net/http falls back to its own transport
// (under Node.js, or with a custom dialer) they would go out as invalid
// header names and fail the request.
func platformHeaders(http.Header) {}
