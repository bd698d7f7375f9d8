package words_test

import (
	"fmt"
	"strings"
	"testing"

	"workbench/pkg/words"
)

func render(d []words.DiffLine) string {
	var b strings.Builder
	for _, l := range d {
		fmt.Fprintf(&b, "%s%s\n", l.Op, l.Text)
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	long := func(change string) string {
		var b strings.Builder
		for i := 1; i <= 12; i++ {
			if i == 6 {
				b.WriteString(change + "\n")
				continue
			}
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name               string
		recorded, observed string
		want               string
	}{
		{"equal", "a\nb", "a\nb", ""},
		{"equal but for the last newline", "a\nb", "a\nb\n", ""},
		{"a changed heading", "page: Docs\nheading: Getting started\nlink: Home",
			"page: Docs\nheading: Quick start\nlink: Home",
			" page: Docs\n-heading: Getting started\n+heading: Quick start\n link: Home\n"},
		{"added at the end", "a\nb", "a\nb\nc", " a\n b\n+c\n"},
		{"removed at the start", "x\na\nb", "a\nb", "-x\n a\n b\n"},
		{"far from the edges: gaps stand for what is left out", long("line 6"), long("line six"),
			"…\n line 4\n line 5\n-line 6\n+line six\n line 7\n line 8\n…\n"},
		{"from nothing", "", "a", "+a\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(words.Diff(tc.recorded, tc.observed, 2)); got != tc.want {
				t.Errorf("Diff:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func ExampleDiff() {
	recorded := "heading: Getting started\nlink: Home"
	observed := "heading: Quick start\nlink: Home"
	for _, l := range words.Diff(recorded, observed, 1) {
		fmt.Println(string(l.Op) + l.Text)
	}
	// Output:
	// -heading: Getting started
	// +heading: Quick start
	//  link: Home
}
