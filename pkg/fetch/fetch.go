// Package fetch sends HTTP requests without tying its callers to an HTTP
// transport. Its Doer is the one method of *http.Client that clients use;
// Default returns the platform's: natively http.DefaultClient, and in a
// browser (GOOS=js) a Doer over the page's own fetch.
//
// It exists for the size of the browser app. Under js/wasm net/http's
// Client also goes through fetch, but its Transport keeps its own HTTP/1,
// HTTP/2 and TLS client as a fallback, and linking Client.Do links all of
// that: about 2.4 MB of code in the app. A program whose requests go
// through this package's browser Doer, and that never converts an
// *http.Client to an interface, links none of it; the http.Request,
// http.Response and http.Header types themselves cost next to nothing.
//
// The browser Doer guarantees:
//
//   - the request goes out with its method, URL (a relative URL is resolved
//     against the page), every header value and its body, with the fetch
//     options credentials "same-origin" (the page's cookies reach its own
//     origin and no other) and redirect "follow", or "manual" for the
//     Doer NoRedirects returns;
//   - the response body is the response's ReadableStream, read chunk by
//     chunk as the caller reads, so a server-sent event stream is delivered
//     as it arrives, not when it ends;
//   - when the request's context ends, before the answer or while the body
//     is read, the fetch is aborted (AbortController) and the error wraps
//     the context's error;
//   - response header names are canonical (http.CanonicalHeaderKey); a
//     header the server sent more than once arrives as fetch joins it, one
//     value separated by ", ".
//
// NoRedirects wraps any of these Doers so that a redirect is an error, a
// *RedirectError, rather than a request resent with the same credentials
// to wherever the server points.
//
// Under Node.js (go test with GOOS=js) fetch reaches real sockets only,
// not the in-process network that net/http/httptest listens on there:
// tests that serve with httptest pass the server's Client.
package fetch

import "net/http"

// Doer sends one HTTP request and returns its response, with the contract
// of http.Client.Do: an error only when no response came, and the caller
// closes the body of a response returned without error. *http.Client is a
// Doer.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}
