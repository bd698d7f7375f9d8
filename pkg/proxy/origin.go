package proxy

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// The origin rule: which page may use the proxy and the relay, and under
// which Host. An AllowedOrigin names it; left empty, the handlers serve the
// same-origin default, for a Worker deployed without configuration.

// SameOrigin is the AllowedOrigin of the same-origin default: a request is
// taken to come from the workbench when its Origin is the request's own
// scheme and Host, and its Host is one no DNS-rebinding page can name
// (rebindProofHost). On Cloudflare that is the Worker's workers.dev or
// Pages' pages.dev name, previews included; a custom domain needs its
// AllowedOrigin.
const SameOrigin = ""

// platformSuffixes are the Cloudflare-run domains whose names only
// Cloudflare routes, each to the one Worker or Pages project that owns it:
// a page on another name cannot reach this Worker through them.
var platformSuffixes = [...]string{".workers.dev", ".pages.dev"}

// checkAllowedOrigin accepts SameOrigin or exactly one origin.
func checkAllowedOrigin(o string) error {
	if o == SameOrigin {
		return nil
	}
	return checkOrigin(o)
}

// checkSite applies the Host rule and the origin rule (the CSRF rule of
// spec §7.5) to r for the configured origin, SameOrigin included.
func checkSite(r *http.Request, origin string) *Error {
	if origin == SameOrigin {
		var e *Error
		if origin, e = ownOrigin(r); e != nil {
			return e
		}
	} else if e := checkHost(r, HostOf(origin)); e != nil {
		return e
	}
	return checkRequestOrigin(r, origin)
}

// ownOrigin returns the origin r names itself, its scheme and its Host,
// when that Host is rebinding-proof. The scheme is the request URL's
// (a Worker sees the full URL), else that of the connection.
func ownOrigin(r *http.Request) (string, *Error) {
	scheme := r.URL.Scheme
	if scheme == "" {
		scheme = "http"
		if r.TLS != nil {
			scheme = "https"
		}
	}
	host := strings.ToLower(r.Host)
	origin := scheme + "://" + host
	if host == "" || checkOrigin(origin) != nil {
		return "", errorf(http.StatusMisdirectedRequest, CodeHostForbidden, "Host %s does not name an origin", clip(r.Host))
	}
	if !rebindProofHost(host) {
		return "", errorf(http.StatusMisdirectedRequest, CodeHostForbidden,
			"Host %s may be a DNS-rebinding name: without ALLOWED_ORIGIN only IP addresses, localhost and names under workers.dev or pages.dev are served; set ALLOWED_ORIGIN to the workbench's origin", clip(r.Host))
	}
	return origin, nil
}

// rebindProofHost reports whether host (host[:port], lower case) is a
// name a DNS-rebinding page cannot stand behind: an IP address or
// localhost, which no attacker's DNS answers for, or a name under one of
// platformSuffixes, which Cloudflare routes to its owner alone.
func rebindProofHost(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	if _, err := netip.ParseAddr(name); err == nil || name == "localhost" {
		return true
	}
	for _, s := range platformSuffixes {
		if label, ok := strings.CutSuffix(name, s); ok && label != "" && !strings.HasSuffix(label, ".") {
			return true
		}
	}
	return false
}
