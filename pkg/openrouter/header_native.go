//go:build !js

package openrouter

import "net/http"

// platformHeaders stops net/http from adding its default User-Agent, so
// the request carries only the headers the package documents.
func platformHeaders(h http.Header) { h["User-Agent"] = []string{""} }
