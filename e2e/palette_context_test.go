package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"workbench/pkg/openrouter/openroutertest"
)

// annotateSchema is the input of a tool that takes what a page knows: the
// skill, its trace, an edge of it and the bundle's hash, beside a note.
const annotateSchema = `{"type":"object","required":["skill_id","note"],"properties":{
  "skill_id":{"type":"string"},"trace_id":{"type":"string"},"edge_index":{"type":"integer","minimum":0},
  "edge_id":{"type":"string"},"content_hash":{"type":"string"},"note":{"type":"string"}}}`

// inferred is the selector of the "prefilled from" note of the palette's
// form field at a JSON pointer.
func inferred(pointer string) string {
	return strings.TrimSuffix(field(pointer), "-input") + "-inferred"
}

// connectHere connects the open palette to the page's origin as its HTTP
// backend without leaving the page, and waits for the catalog entry id.
func (s *session) connectHere(id string) {
	s.t.Helper()
	s.setValue("#pal-backend-url", s.base, "input")
	s.tap("#pal-connect")
	s.waitText("#pal-backend-name", s.base)
	s.waitPresent(`#pal-list [data-cap=` + jsQuote(id) + `]`)
}

// Pages publish what they know and the palette's forms are prefilled from
// it, visibly and editable: the skill page its skill, trace and bundle
// hash and, on the Audit tab, the selected edge; the replay page its
// skill and trace, not the edge; a page that knows none of them
// prefills nothing, and a form prefilled on another page is prefilled
// again when the palette opens.
func TestPaletteContextPrefills(t *testing.T) {
	t.Parallel()
	const capID = "mcp/corpus:annotate_edge"
	rec := &recorder{schemas: map[string]json.RawMessage{"annotate_edge": json.RawMessage(annotateSchema)}}
	s, _ := contractSession(t, rec)

	data, err := os.ReadFile(fixturePath("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fixture struct {
		ContentHash string `json:"content_hash"`
		Trace       struct {
			TraceID string `json:"trace_id"`
			Edges   []struct {
				EdgeID string `json:"edge_id"`
			} `json:"edges"`
		} `json:"interaction_trace"`
	}
	if err := json.Unmarshal(data, &fixture); err != nil || fixture.Trace.TraceID == "" || len(fixture.Trace.Edges) < 2 {
		t.Fatalf("the fixture has no trace id or fewer than two edges (%v)", err)
	}
	id := s.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	s.openSkill(id)
	s.openPalette(chromedp.ModifierCtrl)
	s.connectHere(capID)
	s.closePalette()

	// The Audit tab, edge 1 selected.
	s.tap("#tab-audit")
	s.tap("#audit-edge-1 .audit-edge-select")
	s.waitJS(`document.querySelector("#audit-edge-1 .audit-edge-select").getAttribute("aria-pressed") === "true"`)

	s.openPalette(chromedp.ModifierCtrl)
	s.pickCapability("annotate", capID)
	s.waitPresent(field("/note"))
	want := []struct{ pointer, value, source string }{
		{"/skill_id", id, "current skill"},
		{"/trace_id", fixture.Trace.TraceID, "current trace"},
		{"/edge_index", "1", "selected edge"},
		{"/edge_id", fixture.Trace.Edges[1].EdgeID, "selected edge"},
		{"/content_hash", fixture.ContentHash, "bundle content hash"},
	}
	for _, w := range want {
		if got := eval[string](s, `document.querySelector(`+jsQuote(field(w.pointer))+`).value`); got != w.value {
			t.Errorf("skill page, edge 1: %s holds %q, want %q", w.pointer, got, w.value)
		}
		if got := eval[string](s, `(document.querySelector(`+jsQuote(inferred(w.pointer))+`)||{}).textContent || ""`); got != "prefilled from: "+w.source {
			t.Errorf("skill page, edge 1: %s is marked %q, want prefilled from: %s", w.pointer, got, w.source)
		}
		if s.isDisabled(field(w.pointer)) || eval[bool](s, `!!document.querySelector(`+jsQuote(field(w.pointer))+`).readOnly`) {
			t.Errorf("%s: a prefilled field is not editable", w.pointer)
		}
	}
	if got := eval[string](s, `(document.querySelector(`+jsQuote(inferred("/note"))+`)||{}).textContent || ""`); got != "" {
		t.Errorf("/note is marked %q: nothing of the page is named note", got)
	}
	// Editable: a typed value replaces the prefilled one and its mark.
	s.setValue(field("/edge_index"), "0", "input")
	s.waitJS(`!document.querySelector(` + jsQuote(inferred("/edge_index")) + `)`)
	s.closePalette()

	// The replay page (an in-app navigation: the backend stays) knows the
	// skill and its trace, not an edge. Reopening the palette prefills the
	// open form again.
	s.tap("#skill-replay")
	s.waitJS(`location.pathname === "/skills/` + id + `/replay"`)
	s.waitPresent("#replay-skill-name")
	s.openPalette(chromedp.ModifierCtrl)
	s.waitText(inferred("/trace_id"), "current trace")
	// The form may be opened again meanwhile: its field is briefly absent.
	s.waitJS(`(document.querySelector(` + jsQuote(field("/edge_index")) + `)||{}).value === ""`)
	if got := eval[string](s, `document.querySelector(`+jsQuote(field("/trace_id"))+`).value`); got != fixture.Trace.TraceID {
		t.Errorf("replay page: /trace_id holds %q, want %q", got, fixture.Trace.TraceID)
	}
	for _, p := range []string{"/edge_index", "/edge_id"} {
		if n := s.countOf(inferred(p)); n != 0 {
			t.Errorf("replay page: the edge selected on the skill page still prefills %s", p)
		}
	}
	s.closePalette()

	// /skills knows none of them: nothing is prefilled.
	s.tap(`nav a[href="/skills"]`)
	s.waitJS(`location.pathname === "/skills"`)
	s.openPalette(chromedp.ModifierCtrl)
	s.waitJS(`!document.querySelector(` + jsQuote(inferred("/skill_id")) + `)`)
	for _, w := range want {
		// The form is drawn again for this page; read it once it is there.
		s.waitPresent(field(w.pointer))
		if got := eval[string](s, `document.querySelector(`+jsQuote(field(w.pointer))+`).value`); got != "" {
			t.Errorf("/skills: %s still holds %q from the skill page", w.pointer, got)
		}
		if n := s.countOf(inferred(w.pointer)); n != 0 {
			t.Errorf("/skills: %s is still marked prefilled", w.pointer)
		}
	}
	// And a capability opened here is not prefilled either.
	s.pickCapability("annotate", capID)
	s.waitPresent(field("/note"))
	if n := s.countOf(".sf-inferred"); n != 0 {
		t.Errorf("/skills: %d fields prefilled", n)
	}
}

// /teach publishes the trace of the current demonstration once there is
// one: an open form gets it when the palette opens after the recording
// ended, and "Start again" withdraws it.
func TestPaletteContextTeach(t *testing.T) {
	t.Parallel()
	const capID = "mcp/corpus:annotate_edge"
	const page = "https://docs.workbench.test/getting-started"
	rec := &recorder{schemas: map[string]json.RawMessage{"annotate_edge": json.RawMessage(annotateSchema)}}
	s, _ := contractSessionWith(t, []option{withOpenRouter(openroutertest.WithScript(readHeading(page)))}, rec)
	s.startTeaching()
	s.openPalette(chromedp.ModifierCtrl)
	s.connectHere(capID)
	s.pickCapability("annotate", capID)
	s.waitPresent(field("/note"))
	if n := s.countOf(".sf-inferred"); n != 0 {
		t.Errorf("/teach before a demonstration: %d fields prefilled", n)
	}
	s.closePalette()

	s.setField("#teach-scenario", "skill.basic_prompt_to_manifest", "change")
	s.click("#teach-start")
	s.waitVisible("#teach-draft")
	trace := s.text("#draft-trace")
	if trace == "" {
		t.Fatal("the draft names no trace")
	}
	s.openPalette(chromedp.ModifierCtrl)
	s.waitText(inferred("/trace_id"), "prefilled from: current trace")
	if got := eval[string](s, `document.querySelector(`+jsQuote(field("/trace_id"))+`).value`); got != trace {
		t.Errorf("/teach after the demonstration: /trace_id holds %q, want the draft's trace %q", got, trace)
	}
	for _, p := range []string{"/skill_id", "/edge_index", "/edge_id", "/content_hash"} {
		if n := s.countOf(inferred(p)); n != 0 {
			t.Errorf("/teach: %s is prefilled; the page knows no such thing", p)
		}
	}
	s.closePalette()

	s.click("#teach-again")
	s.waitVisible("#teach-form")
	s.openPalette(chromedp.ModifierCtrl)
	// The form is rebuilt for the changed context: wait for the new one,
	// which has the field and no prefill mark on it.
	s.waitJS(`!!document.querySelector(` + jsQuote(field("/trace_id")) + `) && !document.querySelector(` + jsQuote(inferred("/trace_id")) + `)`)
	if got := eval[string](s, `document.querySelector(`+jsQuote(field("/trace_id"))+`).value`); got != "" {
		t.Errorf("/teach after Start again: /trace_id still holds %q", got)
	}
}
