//go:build js

package httpapi

import "net/http"

// sameOrigin asks fetch to send the page's credentials with the request
// when it goes to the page's own origin, and never to another. Go's
// js/wasm transport reads this header as the fetch option and does not
// send it.
func sameOrigin(req *http.Request) { req.Header.Set("js.fetch:credentials", "same-origin") }
