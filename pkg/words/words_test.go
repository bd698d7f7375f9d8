package words_test

import (
	"encoding/json"
	"strings"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/words"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{0, "edge", "0 edges"},
		{1, "edge", "1 edge"},
		{2, "edge", "2 edges"},
		{1, "replay", "1 replay"},
		{12, "surprise signal", "12 surprise signals"},
	} {
		if got := words.Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
	if got := words.CountOf(2, "policy", "policies"); got != "2 policies" {
		t.Errorf("CountOf = %q", got)
	}
	if got := words.CountOf(1, "policy", "policies"); got != "1 policy" {
		t.Errorf("CountOf = %q", got)
	}
}

func TestUSD(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "$0.00"},
		{0.002, "$0.002"},
		{0.005, "$0.005"},
		{0.0001, "$0.0001"},
		{0.000123, "$0.000123"},
		{1.5, "$1.50"},
		{12, "$12.00"},
		{0.1234567, "$0.123457"},
		{0.0000001, "< $0.000001"},
		{-0.25, "-$0.25"},
	} {
		if got := words.USD(tc.v); got != tc.want {
			t.Errorf("USD(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := words.Cost(0.005, true); got != "$0.005" {
		t.Errorf("Cost known = %q", got)
	}
	if got := words.Cost(0.005, false); got != "$0.005 (some replies reported no cost)" {
		t.Errorf("Cost unknown = %q", got)
	}
}

func TestJSONKeepsAmpersandAndAngles(t *testing.T) {
	v := map[string]any{"q": "a & b < c > d", "n": 1}
	got, err := words.JSON(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"n\": 1,\n  \"q\": \"a & b < c > d\"\n}"
	if got != want {
		t.Errorf("JSON = %q, want %q", got, want)
	}
	c, err := words.CompactJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	if c != `{"n":1,"q":"a & b < c > d"}` {
		t.Errorf("CompactJSON = %q", c)
	}
	if _, err := words.JSON(func() {}); err == nil {
		t.Error("JSON of a function: no error")
	}
}

func TestEnumsInWords(t *testing.T) {
	three := 3
	for _, tc := range []struct {
		name, got, want string
	}{
		{"status success", words.Status(skill.StatusSuccess, nil), "success"},
		{"status surprises", words.Status(skill.StatusCompletedWithSurprises, nil), "completed with surprises"},
		{"status halted", words.Status(skill.StatusHalted, &three), "halted at edge 3"},
		{"status halted, no edge", words.Status(skill.StatusHalted, nil), "halted"},
		{"status unknown", words.Status("exploded", nil), "exploded"},
		{"match not run", words.Match(skill.MatchNotRun), "not run"},
		{"match exact", words.Match(skill.MatchExact), "exact"},
		{"decision allow", words.Decision(skill.DecisionAllow), "allowed"},
		{"decision deny", words.Decision(skill.DecisionDeny), "denied"},
		{"decision approval", words.Decision(skill.DecisionApprovalRequired), "approval required"},
		{"decision unknown", words.Decision("maybe"), "maybe"},
		{"fallback default", words.Fallback(""), "halt on a state hash mismatch"},
		{"fallback halt", words.Fallback(skill.FallbackHalt), "halt on a state hash mismatch"},
		{"fallback continue", words.Fallback(skill.FallbackContinue), "continue past minor differences"},
		{"fallback ask", words.Fallback(skill.FallbackAskUser), "ask the user"},
		{"profile pii", words.Profile(skill.RedactionTranscriptPII), "transcript PII"},
		{"profile none", words.Profile(skill.RedactionNone), "none"},
		{"kind mismatch", words.SurpriseKind(skill.KindStateHashMismatch), "state hash mismatch"},
		{"kind deny", words.SurpriseKind(skill.KindPolicyDeny), "policy denial"},
		{"kind unknown", words.SurpriseKind("x_kind"), "x_kind"},
		{"outcome denied", words.Outcome(skill.OutcomeDenied), "denied by policy"},
		{"outcome ok", words.Outcome(skill.OutcomeOK), "ok"},
		{"yes", words.YesNo(true), "yes"},
		{"no", words.YesNo(false), "no"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// A level that only repeats its gate's verdict is not printed twice.
func TestLevelBeside(t *testing.T) {
	for _, tc := range []struct{ verdict, level, want string }{
		{skill.VerdictInconclusive, skill.LevelInconclusive, ""},
		{skill.VerdictFail, skill.LevelFailed, ""},
		{skill.VerdictPass, skill.LevelExact, skill.LevelExact},
		{skill.VerdictPartial, skill.LevelStructural, skill.LevelStructural},
		{skill.VerdictPass, skill.LevelFailed, skill.LevelFailed}, // contradicts: kept
		{skill.VerdictPass, "", ""},
	} {
		if got := words.LevelBeside(tc.verdict, tc.level); got != tc.want {
			t.Errorf("LevelBeside(%q, %q) = %q, want %q", tc.verdict, tc.level, got, tc.want)
		}
	}
}

func TestFidelity(t *testing.T) {
	for _, tc := range []struct {
		f                              float64
		committed, attempted, recorded int
		want                           string
	}{
		{1, 2, 2, 2, "1 (2 of 2 edges committed)"},
		{1, 1, 1, 1, "1 (1 of 1 edge committed)"},
		{0, 0, 1, 2, "0 (0 of 1 attempted edge committed; 2 edges recorded, 1 not run)"},
		{2.0 / 3, 2, 3, 5, "0.667 (2 of 3 attempted edges committed; 5 edges recorded, 2 not run)"},
		{0.5, 1, 2, 2, "0.5 (1 of 2 edges committed)"},
	} {
		if got := words.Fidelity(tc.f, tc.committed, tc.attempted, tc.recorded); got != tc.want {
			t.Errorf("Fidelity(%v, %d, %d, %d) = %q, want %q", tc.f, tc.committed, tc.attempted, tc.recorded, got, tc.want)
		}
	}
}

func TestSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"text", `"- heading \"Docs\" [ref=e1]"`, `- heading "Docs" [ref=e1]`},
		{"object", `{"url":"https://a.test/?q=1&r=2","title":"A <b>"}`, "title: A <b>\nurl: https://a.test/?q=1&r=2"},
		{"nested", `{"links":[{"name":"README","href":"/r"}],"forms":[]}`, "forms: (none)\nlinks:\n  - href: /r\n    name: README"},
		{"scalars", `[1,true,null,"x"]`, "- 1\n- true\n- null\n- x"},
		{"empty object", `{}`, "{}"},
		{"empty array", `[]`, "(none)"},
		{"null", `null`, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
				t.Fatal(err)
			}
			if got := words.Snapshot(v); got != tc.want {
				t.Errorf("Snapshot(%s) =\n%s\nwant\n%s", tc.in, got, tc.want)
			}
		})
	}
	// A typed value reads as its JSON would: a body's structured answer
	// snapshots alike before it is recorded and after a bundle is read.
	type link struct {
		Name string `json:"name"`
		Href string `json:"href"`
	}
	typed := struct {
		Links []link `json:"links"`
		Forms []int  `json:"forms"`
	}{Links: []link{{"README", "/r"}}, Forms: []int{}}
	if got, want := words.Snapshot(typed), "forms: (none)\nlinks:\n  - href: /r\n    name: README"; got != want {
		t.Errorf("Snapshot(typed) =\n%s\nwant\n%s", got, want)
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("abcdefghij", 50) // 500 characters, one line
	lines := "1\n2\n3\n4\n5"
	for _, tc := range []struct {
		name        string
		in          string
		lines, max  int
		want        string
		wantClipped bool
	}{
		{"short", "hello", 10, 100, "hello", false},
		{"exactly the lines", lines, 5, 100, lines, false},
		{"too many lines", lines, 3, 100, "1\n2\n3", true},
		{"too many characters", long, 10, 25, long[:25], true},
		{"cut at a line end", "aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc", 10, 25, "aaaaaaaaaa\nbbbbbbbbbb", true},
		{"multibyte", "ééééé", 10, 3, "ééé", true},
		{"trailing newline", "a\n", 10, 100, "a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, clipped := words.Clip(tc.in, tc.lines, tc.max)
			if got != tc.want || clipped != tc.wantClipped {
				t.Errorf("Clip = %q, %t; want %q, %t", got, clipped, tc.want, tc.wantClipped)
			}
		})
	}
}
