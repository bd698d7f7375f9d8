package redact

import (
	"fmt"
	"strings"

	"workbench/pkg/sortfunc"
)

// MinFragment is the shortest run of a secret's characters that counts as a
// piece of it: a name or slug cut through a key, or a key split across two
// strings, leaves such a run where the detector no longer sees the key's
// whole shape.
const MinFragment = 16

// Known is the set of secrets found in a bundle before it was redacted,
// kept to recognize any run of MinFragment or more of their bytes wherever
// it turns up later: in the redacted copy, in the name of the file it is
// saved under. It is immutable once built and safe for concurrent use.
//
// Finding fragments is linear in the text searched: every window of
// MinFragment bytes is hashed in rolling fashion, and only a window whose
// hash is in a bit set is looked up in the window table. The table holds
// each window of each secret once, so it grows with the secrets' total
// length, not with the text.
type Known struct {
	secrets int
	windows map[string]string // each MinFragment-byte window of a secret → the secret's kind
	filter  []uint64          // bit set over window hashes
	shift   uint              // 64 minus the bit set's index width
}

// Rolling hash of MinFragment-byte windows: h = Σ c_i·base^(n-1-i) mod 2^64.
const (
	hashBase = 1099511628211 // odd, so the multiply mixes every bit
	hashMix  = 0x9e3779b97f4a7c15
)

// hashOut is base^MinFragment, the weight of the byte leaving a window.
func hashOut() uint64 {
	p := uint64(1)
	for range MinFragment {
		p *= hashBase
	}
	return p
}

// Known collects every secret (each of the Kinds) and every password value
// anywhere in v, member names included, as the set whose fragments later
// checks look for. v is what Scan accepts.
func (d *Detector) Known(v any) (*Known, error) {
	root, err := toTree(v)
	if err != nil {
		return nil, fmt.Errorf("redact: collect secrets: %w", err)
	}
	return d.knownOf(root), nil
}

// knownOf is Known over a generic JSON tree.
func (d *Detector) knownOf(root any) *Known {
	k := &Known{windows: make(map[string]string)}
	f := finder{d: d}
	var buf []Match
	add := func(s, name string) {
		buf = f.find(buf[:0], s, name)
		for _, m := range buf {
			k.add(m.Kind, s[m.Start:m.End])
		}
		buf = appendPasswordsOnly(buf[:0], s, name)
		for _, m := range buf {
			k.add(m.Kind, s[m.Start:m.End])
		}
	}
	var visit func(v any, name string)
	visit = func(v any, name string) {
		switch t := v.(type) {
		case string:
			add(t, name)
		case []any:
			for _, c := range t {
				visit(c, name)
			}
		case map[string]any:
			for key, c := range t {
				add(key, "")
				visit(c, key)
			}
		}
	}
	visit(root, "")
	k.index()
	return k
}

// appendPasswordsOnly appends the password values of s: the personal
// pattern that is a secret.
func appendPasswordsOnly(dst []Match, s, name string) []Match {
	n0 := len(dst)
	dst = appendPII(dst, s, name)
	out := dst[:n0]
	for _, m := range dst[n0:] {
		if m.Kind == KindPassword {
			out = append(out, m)
		}
	}
	return out
}

// add records the windows of one secret. Windows that lie wholly in the
// part of a secret every secret of its kind shares — the armour lines of
// a private key, a Slack webhook's https://hooks.slack.com/services/, a
// JWT's header — give nothing away and are left out, so that a bundle
// mentioning those words is not taken for one leaking a key.
func (k *Known) add(kind, secret string) {
	if len(secret) < MinFragment {
		return
	}
	k.secrets++
	lo, hi := publicSpan(kind, secret)
	for i := 0; i+MinFragment <= len(secret); i++ {
		if i+MinFragment <= lo || i >= hi {
			continue
		}
		w := secret[i : i+MinFragment]
		if _, ok := k.windows[w]; !ok {
			k.windows[strings.Clone(w)] = kind
		}
	}
}

// publicSpan returns the secret bytes [lo, hi) that are not shared with
// every other secret of the kind: windows ending at or before lo, or
// starting at or after hi, are public.
func publicSpan(kind, s string) (lo, hi int) {
	hi = len(s)
	switch kind {
	case KindPrivateKey:
		if i := strings.Index(s[len(privateKeyBegin):], "-----"); i >= 0 {
			lo = len(privateKeyBegin) + i + len("-----")
		}
		if j := strings.LastIndex(s, "-----END "); j >= lo {
			hi = j
		}
	case KindSlackWebhook:
		for _, p := range []string{"/services/", "/workflows/", "/triggers/"} {
			if i := strings.Index(s, p); i >= 0 {
				lo = i + len(p)
				break
			}
		}
	case KindJWT:
		if i := strings.IndexByte(s, '.'); i >= 0 {
			lo = i + 1
		}
	}
	return lo, hi
}

// index builds the bit set over the window hashes, about sixteen bits per
// window, so that most windows of a text that holds no fragment are turned
// away without a table lookup.
func (k *Known) index() {
	bits := uint(12)
	for 1<<bits < 16*len(k.windows) && bits < 26 {
		bits++
	}
	k.filter = make([]uint64, 1<<bits/64)
	k.shift = 64 - bits
	for w := range k.windows {
		h := k.slot(windowHash(w))
		k.filter[h/64] |= 1 << (h % 64)
	}
}

func (k *Known) slot(h uint64) uint64 { return (h * hashMix) >> k.shift }

func windowHash(w string) uint64 {
	var h uint64
	for i := 0; i < len(w); i++ {
		h = h*hashBase + uint64(w[i])
	}
	return h
}

// Len is the number of secrets of MinFragment or more bytes in the set.
func (k *Known) Len() int {
	if k == nil {
		return 0
	}
	return k.secrets
}

// Find returns the runs of s made of MinFragment or more bytes of a known
// secret, ordered and not overlapping, each with the kind of the secret it
// comes from. A whole secret is such a run too. A nil Known finds nothing.
func (k *Known) Find(s string) []Match {
	return k.appendFragments(nil, s)
}

func (k *Known) appendFragments(dst []Match, s string) []Match {
	if k.Len() == 0 || len(s) < MinFragment {
		return dst
	}
	var h uint64
	for i := 0; i < MinFragment-1; i++ {
		h = h*hashBase + uint64(s[i])
	}
	out := hashOut()
	n0 := len(dst)
	for i := 0; i+MinFragment <= len(s); i++ {
		h = h*hashBase + uint64(s[i+MinFragment-1])
		if i > 0 {
			h -= out * uint64(s[i-1])
		}
		slot := k.slot(h)
		if k.filter[slot/64]&(1<<(slot%64)) == 0 {
			continue
		}
		kind, ok := k.windows[s[i:i+MinFragment]]
		if !ok {
			continue
		}
		if n := len(dst); n > n0 && dst[n-1].End >= i {
			dst[n-1].End = i + MinFragment
			continue
		}
		dst = append(dst, Match{Kind: kind, Start: i, End: i + MinFragment})
	}
	return dst
}

// sortMerge orders dst[n0:] by position and merges overlapping matches into
// one, which takes the kind of the earliest (the longest, when two start
// together), so that every byte any match claimed is still covered.
func sortMerge(dst []Match, n0 int) []Match {
	found := dst[n0:]
	if len(found) < 2 {
		return dst
	}
	sortfunc.Sort(found, func(a, b Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	keep := found[:1]
	for _, m := range found[1:] {
		if last := &keep[len(keep)-1]; m.Start < last.End {
			last.End = max(last.End, m.End)
			continue
		}
		keep = append(keep, m)
	}
	return dst[:n0+len(keep)]
}
