package schemas

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

var patternCases = []struct {
	pattern string
	fixed   bool // matched byte by byte rather than by the regexp
}{
	{`^sha256:[0-9a-f]{64}$`, true},
	{`^[a-z]{3}-[0-9]{2}$`, true},
	{`^x$`, true},
	{`^$`, true},
	{`^\.\$[\-_]{0}a{2}$`, true},
	{`^sha256:[0-9a-f]{64}`, false}, // open at the end
	{`sha256:[0-9a-f]{64}$`, false}, // open at the start
	{`^(&[a-z]+\.[a-z_]+|ambient)$`, false},
	{`^(?i)abc$`, false},
	{`^[a-z]{1,3}$`, false},
	{`^é$`, false},
	{`^[^a]$`, false},
	{`^a.$`, false},
	{`^a$|^b$`, false},
	{`(?m)^a$`, false},
}

// TestFastPatternMatchesRegexp holds fixed-length matching to the regular
// expression on strings near and far from each pattern.
func TestFastPatternMatchesRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "abcdefxyz0123456789:-_.$&ABCé\n"
	for _, tc := range patternCases {
		re := regexp.MustCompile(tc.pattern)
		fast := fastPattern(re)
		if _, fixed := fast.(*fixedPattern); fixed != tc.fixed {
			t.Errorf("%s: matched byte by byte: %v, want %v", tc.pattern, fixed, tc.fixed)
		}
		if fast.String() != tc.pattern {
			t.Errorf("%s: String() = %q", tc.pattern, fast.String())
		}
		samples := []string{"", "sha256:" + strings.Repeat("0a", 32), "sha256:" + strings.Repeat("0a", 32) + "\n",
			"sha256:" + strings.Repeat("0A", 32), "abc-12", "x", "x\n", ".$aa", "ambient", "&body.x"}
		for range 20000 {
			b := []byte(samples[r.IntN(len(samples))])
			for range r.IntN(3) {
				switch i := r.IntN(len(b) + 1); {
				case i == len(b) || r.IntN(3) == 0:
					b = append(b, alphabet[r.IntN(len(alphabet))])
				case r.IntN(2) == 0:
					b[i] = alphabet[r.IntN(len(alphabet))]
				default:
					b = append(b[:i], b[i+1:]...)
				}
			}
			s := string(b)
			if got, want := fast.MatchString(s), re.MatchString(s); got != want {
				t.Fatalf("%s on %q: %v, regexp says %v", tc.pattern, s, got, want)
			}
		}
	}
}

// FuzzFastPattern holds fixed-length matching to the regular expression on
// arbitrary patterns and strings.
func FuzzFastPattern(f *testing.F) {
	for _, tc := range patternCases {
		f.Add(tc.pattern, "sha256:"+strings.Repeat("0", 64))
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		if got, want := fastPattern(re).MatchString(s), re.MatchString(s); got != want {
			t.Errorf("%q on %q: %v, regexp says %v", pattern, s, got, want)
		}
	})
}
