package crystallize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFirstSentence(t *testing.T) {
	key := "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)
	long := "Open the support form at https://support.workbench.test/contact, type Please revoke my OpenRouter key " + key + ", it leaked"
	for _, tc := range []struct {
		name, goal, want string
	}{
		{"short", "Read the heading.", "Read the heading"},
		{"first sentence only", "Read the heading. Then stop.", "Read the heading"},
		{"empty", "  ", "Untitled skill"},
		{"exactly the limit", strings.Repeat("a", 120), strings.Repeat("a", 120)},
		{"cut between words", strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 23)) + " word…"},
		{"a word across the limit is dropped", long, "Open the support form at https://support.workbench.test/contact, type Please revoke my OpenRouter key…"},
		{"one long word is cut", strings.Repeat("x", 130), strings.Repeat("x", 119) + "…"},
		{"no dangling punctuation", strings.Repeat("a", 100) + ", " + strings.Repeat("b", 30), strings.Repeat("a", 100) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := firstSentence(tc.goal, 120)
			if got != tc.want {
				t.Errorf("firstSentence(%q)\n got %q\nwant %q", tc.goal, got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > 120 {
				t.Errorf("%d characters, more than the limit", n)
			}
		})
	}
	// The reason for cutting between words: no fragment of the key is left
	// for redaction to miss.
	if got := firstSentence(long, 120); strings.Contains(got, "sk-or") {
		t.Errorf("the name keeps part of the key: %q", got)
	}
}
