package words

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// DiffLine is one line of a difference between two texts, as a person
// reads it: kept in both, only in the recording (removed), only in what
// was observed (added), or a gap standing for unchanged lines left out.
type DiffLine struct {
	Op   DiffOp
	Text string
}

// DiffOp is what happened to a line.
type DiffOp string

// The kinds of line.
const (
	DiffSame    DiffOp = " "
	DiffRemoved DiffOp = "-"
	DiffAdded   DiffOp = "+"
	DiffGap     DiffOp = "…"
)

// Diff is the difference between the text recorded and the text observed,
// line by line, with context unchanged lines around each change and a gap
// line where more were left out. Equal texts have no lines.
func Diff(recorded, observed string, context int) []DiffLine {
	// A last line without its newline is the same line as with one.
	recorded, observed = withNewline(recorded), withNewline(observed)
	if recorded == observed {
		return nil
	}
	edits := udiff.Lines(recorded, observed)
	u, err := udiff.ToUnifiedDiff("recorded", "observed", recorded, edits, context)
	if err != nil {
		// Lines gives edits that apply to recorded; should that ever
		// fail, both texts whole are still the truth.
		return []DiffLine{{DiffRemoved, recorded}, {DiffAdded, observed}}
	}
	var out []DiffLine
	next := 1 // the first recorded line not yet shown
	for _, h := range u.Hunks {
		if h.FromLine > next {
			out = append(out, DiffLine{DiffGap, ""})
		}
		from := h.FromLine
		for _, l := range h.Lines {
			text := strings.TrimSuffix(l.Content, "\n")
			switch l.Kind {
			case udiff.Delete:
				out = append(out, DiffLine{DiffRemoved, text})
				from++
			case udiff.Insert:
				out = append(out, DiffLine{DiffAdded, text})
			default:
				out = append(out, DiffLine{DiffSame, text})
				from++
			}
		}
		next = from
	}
	if next <= len(lines(recorded)) {
		out = append(out, DiffLine{DiffGap, ""})
	}
	return out
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// lines are text's lines, without a final empty one after its last
// newline.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
