package proxy

import "net/http"

// The edge rules, for handlers of other packages mounted beside the proxy
// and the relay on the same origin (the skill registry, package
// registry/server): one Host rule, one Origin rule, one set of headers
// under /api/, so that no handler of the workbench's origin applies them
// differently.

// CheckAllowedOrigin accepts SameOrigin or exactly one origin, as New
// does for Config.AllowedOrigin.
func CheckAllowedOrigin(origin string) error { return checkAllowedOrigin(origin) }

// SiteOrigin applies the Host rule to r for the configured origin
// (SameOrigin included) and returns the workbench's origin for r: the
// configured one, or under SameOrigin the request's own scheme and Host.
// A Host the rule refuses is a 421 host_forbidden.
func SiteOrigin(r *http.Request, allowed string) (string, *Error) {
	if allowed == SameOrigin {
		return ownOrigin(r)
	}
	if e := checkHost(r, HostOf(allowed)); e != nil {
		return "", e
	}
	return allowed, nil
}

// CheckRequestOrigin is the CSRF rule of spec §7.5: r carries exactly one
// Origin equal to origin, or is a GET a browser attests to be
// same-origin (Sec-Fetch-Site). A 403 otherwise.
func CheckRequestOrigin(r *http.Request, origin string) *Error { return checkRequestOrigin(r, origin) }

// SecureAPIHeaders sets the headers every /api/ response carries: a
// Content-Security-Policy under which nothing runs ("default-src 'none';
// sandbox") and nosniff.
func SecureAPIHeaders(h http.Header) { secureAPIHeaders(h) }
