package crystallize_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"workbench/pkg/body"
	"workbench/pkg/crystallize"
	"workbench/pkg/redact"
	"workbench/pkg/skill"
)

// fakeKey has the shape of an OpenRouter key; it is not one.
var fakeKey = "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)

func TestName(t *testing.T) {
	d := redact.NewDetector()
	for _, tc := range []struct {
		name, goal, want string
	}{
		{"short", "Read the heading.", "Read the heading"},
		{"first sentence only", "Read the heading. Then stop.", "Read the heading"},
		{"empty", "  ", "Untitled skill"},
		{"a key in a short task", "Use token " + fakeKey, "Use token"},
		{"a key glued to a label", "Call the API with key=" + fakeKey + " today", "Call the API with today"},
		{"a key from an input", "Type Please revoke " + fakeKey + ", it leaked into the form", "Type Please revoke it leaked"},
		{"only a key", fakeKey, "Untitled skill"},
		{"an e-mail and a password", "Log in as jane@example.com, password: hunter2", "Log in as password"},
		{"a URL is its host", "Open https://git.workbench.test/acme/widget?token=abc, then read it", "Open git.workbench.test, then read it"},
		{"a long word is left out", "Find " + strings.Repeat("x", 40) + " now", "Find now"},
		{"at most six words", "one two three four five six seven", "one two three four five six"},
		{"at most 48 characters", "Summarize extraordinarily comprehensive documentation thoroughly today", "Summarize extraordinarily comprehensive"},
		{"no dangling comma", "Open the page, read its README and more words", "Open the page, read its README"},
		{"cut before a comma", "alpha beta gamma delta epsilon zeta, eta", "alpha beta gamma delta epsilon zeta"},
		{"a cut phrase ends on a word that means something", "Check that the page and the form work", "Check that the page"},
		{"no ellipsis, no article at the end", "Open weather.workbench.test and find the forecast for tomorrow", "Open weather.workbench.test and find"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := crystallize.Name(d, tc.goal)
			if got != tc.want {
				t.Errorf("Name(%q)\n got %q\nwant %q", tc.goal, got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > 48 {
				t.Errorf("%d characters, more than 48", n)
			}
			if strings.HasSuffix(got, "…") {
				t.Errorf("%q ends in an ellipsis", got)
			}
		})
	}
}

// TestNameNeverHoldsAPieceOfAKey puts a key at every word position of a
// long goal, glued to punctuation and labels, and checks that neither the
// name nor its slug nor the file name holds any run of 16 characters of it.
func TestNameNeverHoldsAPieceOfAKey(t *testing.T) {
	d := redact.NewDetector()
	words := strings.Fields("Open the support form at https://support.workbench.test/contact and type the notes into the message field, then submit it")
	for _, glue := range []string{"%s", "key=%s", "(%s)", "%s,", `"%s"`} {
		for i := range len(words) + 1 {
			goal := strings.Join(words[:i], " ") + " " + strings.Replace(glue, "%s", fakeKey, 1) + " " + strings.Join(words[i:], " ")
			k, err := d.Known(goal)
			if err != nil {
				t.Fatal(err)
			}
			name := crystallize.Name(d, goal)
			slug := skill.Slugify(name)
			for _, s := range []string{name, slug, skill.ExportFilename(slug, 1)} {
				if ms := k.Find(s); len(ms) > 0 || strings.Contains(s, "sk-or") || strings.Contains(s, "sk or") {
					t.Fatalf("goal %q: %q holds part of the key", goal, s)
				}
			}
		}
	}
}

func TestDraftCleansAGivenName(t *testing.T) {
	byDefault := crystallize.Name(redact.NewDetector(), trace().Goal)
	for _, tc := range []struct{ given, name string }{
		{"Deploy with " + fakeKey, "Deploy with"},
		{"Weather for jane@example.com", "Weather for"},
		{fakeKey, byDefault}, // nothing is left: the default name
	} {
		m, err := crystallize.Draft(crystallize.Request{Trace: trace(), SkillID: skill.NewID(), Name: tc.given, BodyChoice: body.KindSimulator})
		if err != nil {
			t.Fatal(err)
		}
		if m.Name != tc.name || m.Slug != skill.Slugify(tc.name) {
			t.Errorf("name %q gave %q / %q, want %q", tc.given, m.Name, m.Slug, tc.name)
		}
	}
}
