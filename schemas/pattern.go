package schemas

import (
	"regexp"
	"regexp/syntax"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fastPattern returns what a plan matches the compiled pattern r with. A
// pattern anchored at both ends that is a sequence of ASCII literals and
// ASCII character classes, each repeated a fixed number of times — the
// shape of ^sha256:[0-9a-f]{64}$, which every state and shape hash of an
// edge is held to — matches exactly the strings of its length whose every
// byte is in the set at its position, and is matched that way. Every other
// pattern is matched by the library's regular expression itself.
func fastPattern(r jsonschema.Regexp) jsonschema.Regexp {
	re, ok := r.(*regexp.Regexp)
	if !ok {
		return r
	}
	// The library compiles patterns with regexp.Compile, which parses
	// them with the Perl flags.
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return r
	}
	parsed = parsed.Simplify()
	subs := parsed.Sub
	if parsed.Op != syntax.OpConcat || len(subs) < 2 ||
		subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return r
	}
	f := fixedPattern{source: re.String()}
	for _, s := range subs[1 : len(subs)-1] {
		if !f.add(s) {
			return r
		}
	}
	return &f
}

// byteSet is a set of ASCII bytes.
type byteSet [2]uint64

func (s *byteSet) has(c byte) bool { return c < 128 && s[c>>6]&(1<<(c&63)) != 0 }

// fixedPattern matches a string of exactly len(at) bytes whose byte i is in
// at[i].
type fixedPattern struct {
	at     []byteSet
	source string
}

// add appends what s matches, reporting false when that is not a fixed
// sequence of ASCII byte sets.
func (f *fixedPattern) add(s *syntax.Regexp) bool {
	switch s.Op {
	case syntax.OpConcat:
		for _, sub := range s.Sub {
			if !f.add(sub) {
				return false
			}
		}
		return true
	case syntax.OpEmptyMatch:
		return true
	case syntax.OpLiteral:
		if s.Flags&syntax.FoldCase != 0 {
			return false
		}
		for _, r := range s.Rune {
			if r >= 128 {
				return false
			}
			var set byteSet
			set[r>>6] |= 1 << (r & 63)
			f.at = append(f.at, set)
		}
		return true
	case syntax.OpCharClass:
		var set byteSet
		for i := 0; i+1 < len(s.Rune); i += 2 {
			lo, hi := s.Rune[i], s.Rune[i+1]
			if lo < 0 || hi >= 128 {
				return false
			}
			for r := lo; r <= hi; r++ {
				set[r>>6] |= 1 << (r & 63)
			}
		}
		f.at = append(f.at, set)
		return true
	case syntax.OpRepeat:
		if s.Min != s.Max || s.Min < 0 || s.Min > 1000 {
			return false
		}
		for range s.Min {
			if !f.add(s.Sub[0]) {
				return false
			}
		}
		return true
	}
	return false
}

// MatchString reports whether s matches the pattern.
func (f *fixedPattern) MatchString(s string) bool {
	if len(s) != len(f.at) {
		return false
	}
	for i := range len(s) {
		if !f.at[i].has(s[i]) {
			return false
		}
	}
	return true
}

// String is the pattern's source.
func (f *fixedPattern) String() string { return f.source }
