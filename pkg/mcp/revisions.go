package mcp

import "sync"

// Revisions remembers, per endpoint URL, the protocol revision a server
// negotiated in Dial, so that later dials of that endpoint with the same
// Revisions (Options.Revisions) start with what it spoke.
//
// What the memo saves is the refused handshake of a server that speaks
// only the sessionless revision 2026-07-28: Dial starts with initialize,
// which such a server refuses (a browser logs the refusal as a failed
// request); remembered, it is discovered at once. Remembering a session
// revision changes no request (initialize comes first anyway) but says
// what the server spoke.
//
// A memo is a hint, never a constraint: when the remembered revision is
// refused in a way that shows the server changed (initialize answered
// with an HTTP error status, a JSON-RPC error or an answer that is not
// an initialize result; server/discover refused), Dial forgets it and
// negotiates as without a memo, in the same call and within the same
// timeout, and remembers what it then negotiates. A server that cannot be
// reached leaves the memo as it is. Dials with a pinned
// Options.ProtocolVersion neither read nor write it: a pin says nothing
// about what the server would choose.
//
// Endpoints are compared as the exact strings given to Dial. The zero
// value is an empty memo, ready to use; a Revisions is safe for
// concurrent use and must not be copied after first use. Dials of one
// endpoint that start together before any of them has finished
// negotiating each negotiate on their own.
type Revisions struct {
	mu sync.Mutex
	m  map[string]string // endpoint → negotiated revision
}

// Revision returns the revision remembered for endpoint: StatelessProtocolVersion,
// the session revision the server chose in initialize (such as
// ProtocolVersion), or "" if none. A nil Revisions remembers nothing.
func (r *Revisions) Revision(endpoint string) string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[endpoint]
}

// remember records that endpoint negotiated version.
func (r *Revisions) remember(endpoint, version string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]string{}
	}
	r.m[endpoint] = version
}

// forget drops endpoint's entry if it still says stale, so that a dial
// that found its memo stale does not erase what a concurrent dial has
// negotiated meanwhile.
func (r *Revisions) forget(endpoint, stale string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[endpoint] == stale {
		delete(r.m, endpoint)
	}
}
