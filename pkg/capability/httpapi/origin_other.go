//go:build !js

package httpapi

import "net/http"

// sameOrigin does nothing natively: outside the browser there are no
// ambient credentials, and the client adds none of its own.
func sameOrigin(*http.Request) {}
