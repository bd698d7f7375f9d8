package sim

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"workbench/pkg/body"
)

// find looks up a page by URL as a browser reaches it: the normal form
// first, then the same URL with or without a trailing slash, as a site
// redirecting between the two would.
func (s *Sim) find(raw string) (*Page, string, error) {
	u, err := normURL(raw)
	if err != nil {
		return nil, "", err
	}
	if p := s.world.page(u); p != nil {
		return p, u, nil
	}
	pu, _ := url.Parse(u)
	if pu.Path != "/" {
		if strings.HasSuffix(pu.Path, "/") {
			pu.Path = strings.TrimSuffix(pu.Path, "/")
		} else {
			pu.Path += "/"
		}
		pu.RawPath = ""
		if p := s.world.page(pu.String()); p != nil {
			return p, p.URL, nil
		}
	}
	return nil, u, fmt.Errorf("no page at %s (HTTP 404)", u)
}

// load shows page p: typed values are gone, as after a real page load.
func (s *Sim) load(p *Page) {
	s.url = p.URL
	s.values = map[string]map[string]string{}
	s.changed(partBrowser)
}

// current returns the page on screen, or a tool error saying there is none.
func (s *Sim) current() (*Page, *body.Result) {
	if s.url == "" {
		r := failf("no page is open; open one with %s", BrowserNavigate)
		return nil, &r
	}
	p := s.world.page(s.url)
	if p == nil {
		r := failf("the page at %s no longer exists (HTTP 404); open another with %s", s.url, BrowserNavigate)
		return nil, &r
	}
	return p, nil
}

// shown is the result of an action that leaves the browser on a page: a
// sentence saying what happened, then the page's snapshot.
func (s *Sim) shown(what string) body.Result {
	v := s.view()
	return body.Result{Text: what + "\n\n" + renderSnapshot(v), Structured: v}
}

func (s *Sim) navigate(a args) body.Result {
	p, u, err := s.find(a.str("url"))
	if err != nil {
		if u == "" {
			return failf("cannot open %q: %v", a.str("url"), err)
		}
		return failf("cannot open %s: %v", u, err)
	}
	s.load(p)
	return s.shown("Opened " + p.URL + ".")
}

func (s *Sim) snapshot(args) body.Result {
	if s.url == "" {
		return body.Result{Text: "No page is open (about:blank). Open one with " + BrowserNavigate + ".", Structured: map[string]any{"url": "", "page": nil}}
	}
	if _, r := s.current(); r != nil {
		return *r
	}
	v := s.view()
	return body.Result{Text: renderSnapshot(v), Structured: v}
}

func (s *Sim) click(a args) body.Result {
	p, r := s.current()
	if r != nil {
		return *r
	}
	name, role := a.str("name"), a.str("role")
	links, buttons := clickTargets(p, name, role)
	switch n := len(links) + len(buttons); {
	case n == 0:
		if f, _ := s.fieldsNamed(p, name, ""); len(f) > 0 {
			return failf("%q is a form field, not a link or button; use %s to fill it", name, BrowserType)
		}
		return failf("no link or button named %q on this page; it has %s", name, s.clickables(p, role))
	case n > 1:
		if len(links) > 0 && len(buttons) > 0 {
			return failf("%q names both a link and a button on this page; say which with role", name)
		}
		if len(buttons) > 0 {
			return failf("%d buttons are named %q on this page (in forms %s); use %s with form and button", len(buttons), name, quoteList(distinct(buttons, func(b formButton) string { return b.form.Name })), BrowserSubmit)
		}
		// Several links by one name lead to the same page or the click is
		// ambiguous.
		for _, l := range links[1:] {
			if l.Href != links[0].Href {
				return failf("%d links named %q lead to different pages; open the one you want with %s", len(links), name, BrowserNavigate)
			}
		}
		buttons = nil
	}
	if len(buttons) == 1 {
		return s.send(p, buttons[0].form, buttons[0].button)
	}
	l := links[0]
	dest, u, err := s.find(l.Href)
	if err != nil {
		return failf("link %q leads to %s: %v", l.Name, u, err)
	}
	s.load(dest)
	return s.shown(fmt.Sprintf("Clicked link %q; now at %s.", l.Name, dest.URL))
}

// formButton is a button and the form it submits.
type formButton struct {
	form   *Form
	button Button
}

// clickTargets finds the links and buttons of p a click on name reaches;
// role "link" or "button" restricts it to one kind. Exact names win over
// names that match only when case and surrounding space are ignored.
func clickTargets(p *Page, name, role string) ([]Link, []formButton) {
	var links []Link
	var buttons []formButton
	for _, exact := range []bool{true, false} {
		same := func(n string) bool {
			if exact {
				return n == name
			}
			return fold(n) == fold(name)
		}
		if role != "button" {
			for _, l := range p.Links {
				if same(l.Name) {
					links = append(links, l)
				}
			}
		}
		if role != "link" {
			for i := range p.Forms {
				for _, b := range p.Forms[i].Buttons {
					if same(b.Name) {
						buttons = append(buttons, formButton{&p.Forms[i], b})
					}
				}
			}
		}
		if len(links)+len(buttons) > 0 {
			break
		}
	}
	return links, buttons
}

// distinct returns the distinct names of xs, in order.
func distinct[T any](xs []T, name func(T) string) []string {
	var out []string
	for _, x := range xs {
		if n := name(x); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// clickables lists the names of the page's links and buttons for an error
// message.
func (s *Sim) clickables(p *Page, role string) string {
	var parts []string
	if role != "button" {
		for _, l := range p.Links {
			parts = append(parts, "link "+strconv.Quote(l.Name))
		}
	}
	if role != "link" {
		for _, f := range p.Forms {
			for _, b := range f.Buttons {
				parts = append(parts, "button "+strconv.Quote(b.Name))
			}
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// fieldsNamed finds the fields whose label (or name) is name, in the form
// named form when form is not empty. Exact labels win over folded ones,
// labels over field names.
func (s *Sim) fieldsNamed(p *Page, name, form string) ([]*Form, []Field) {
	for _, by := range []func(Field) bool{
		func(f Field) bool { return f.Label == name },
		func(f Field) bool { return fold(f.Label) == fold(name) },
		func(f Field) bool { return f.Name == name },
	} {
		var forms []*Form
		var fields []Field
		for i := range p.Forms {
			if form != "" && fold(p.Forms[i].Name) != fold(form) {
				continue
			}
			for _, fl := range p.Forms[i].Fields {
				if by(fl) {
					forms = append(forms, &p.Forms[i])
					fields = append(fields, fl)
				}
			}
		}
		if len(fields) > 0 {
			return forms, fields
		}
	}
	return nil, nil
}

func (s *Sim) typeText(a args) body.Result {
	p, r := s.current()
	if r != nil {
		return *r
	}
	name, text, form := a.str("field"), a.str("text"), a.str("form")
	if form != "" && s.form(p, form) == nil {
		return failf("no form named %q on this page; it has %s", form, s.formNames(p))
	}
	forms, fields := s.fieldsNamed(p, name, form)
	switch len(fields) {
	case 0:
		var labels []string
		for _, f := range p.Forms {
			if form != "" && fold(f.Name) != fold(form) {
				continue
			}
			for _, fl := range f.Fields {
				labels = append(labels, fl.Label)
			}
		}
		if len(labels) == 0 {
			return failf("this page has no form fields")
		}
		return failf("no field labelled %q on this page; its fields are %s", name, quoteList(labels))
	case 1:
	default:
		return failf("%d fields are labelled %q (in forms %s); say which form with form", len(fields), name, quoteList(distinct(forms, func(f *Form) string { return f.Name })))
	}
	f, fl := forms[0], fields[0]
	if fl.Type == "select" {
		opt := ""
		for _, exact := range []bool{true, false} {
			for _, o := range fl.Options {
				if o == text || !exact && fold(o) == fold(text) {
					opt = o
					break
				}
			}
			if opt != "" {
				break
			}
		}
		if opt == "" {
			return failf("%q is not an option of %q; its options are %s", text, fl.Label, quoteList(fl.Options))
		}
		text = opt
	}
	if s.values[f.Name] == nil {
		s.values[f.Name] = map[string]string{}
	}
	s.values[f.Name][fl.Name] = text
	s.changed(partBrowser)
	return body.Result{
		Text:       fmt.Sprintf("Typed %s into %s %q of form %q.", strconv.Quote(text), role(fl.Type), fl.Label, f.Name),
		Structured: map[string]any{"form": f.Name, "field": fl.Name, "label": fl.Label, "value": text},
	}
}

func (s *Sim) form(p *Page, name string) *Form {
	for _, exact := range []bool{true, false} {
		for i := range p.Forms {
			if p.Forms[i].Name == name || !exact && fold(p.Forms[i].Name) == fold(name) {
				return &p.Forms[i]
			}
		}
	}
	return nil
}

func (s *Sim) formNames(p *Page) string {
	if len(p.Forms) == 0 {
		return "no forms"
	}
	return "the forms " + quoteList(distinct(p.Forms, func(f Form) string { return f.Name }))
}

func (s *Sim) submit(a args) body.Result {
	p, r := s.current()
	if r != nil {
		return *r
	}
	var f *Form
	switch name := a.str("form"); {
	case name != "":
		if f = s.form(p, name); f == nil {
			return failf("no form named %q on this page; it has %s", name, s.formNames(p))
		}
	case len(p.Forms) == 1:
		f = &p.Forms[0]
	case len(p.Forms) == 0:
		return failf("this page has no form to submit")
	default:
		return failf("this page has %d forms; say which with form: %s", len(p.Forms), s.formNames(p))
	}
	b := f.Buttons[0]
	if name := a.str("button"); name != "" {
		i := slices.IndexFunc(f.Buttons, func(b Button) bool { return b.Name == name })
		if i < 0 {
			i = slices.IndexFunc(f.Buttons, func(b Button) bool { return fold(b.Name) == fold(name) })
		}
		if i < 0 {
			return failf("form %q has no button named %q; its buttons are %s", f.Name, name, quoteList(distinct(f.Buttons, func(b Button) string { return b.Name })))
		}
		b = f.Buttons[i]
	}
	return s.send(p, f, b)
}

// send submits form f of page p with button b: constraint validation as
// a browser does it, then the button's rule.
func (s *Sim) send(p *Page, f *Form, b Button) body.Result {
	vals := map[string]string{}
	var problems []string
	for _, fl := range f.Fields {
		v := s.value(*f, fl)
		vals[fl.Name] = v
		switch {
		case strings.TrimSpace(v) == "" && fl.Required:
			problems = append(problems, fmt.Sprintf("%q is required", fl.Label))
		case v != "":
			if msg := invalidValue(fl, v); msg != "" {
				problems = append(problems, fmt.Sprintf("%s: %s", fl.Label, msg))
			}
		}
	}
	if len(problems) > 0 {
		return failf("form %q was not submitted: %s", f.Name, strings.Join(problems, "; "))
	}
	var dest *Page
	switch rule := b.Submit; {
	case rule.Lookup != nil:
		l := rule.Lookup
		key := matchKey(l.Match, vals[l.Field])
		target := ""
		for _, k := range slices.Sorted(maps.Keys(l.Table)) {
			if matchKey(l.Match, k) == key {
				target = l.Table[k]
				break
			}
		}
		if target == "" {
			target = l.Otherwise
		}
		if target == "" {
			return failf("form %q was not submitted: the site has no result for %s %s", f.Name, fieldLabel(f, l.Field), strconv.Quote(vals[l.Field]))
		}
		d, u, err := s.find(target)
		if err != nil {
			return failf("submitting form %q led to %s: %v", f.Name, u, err)
		}
		dest = d
	case rule.Template != nil:
		t := rule.Template
		k := seqKey{p.URL, f.Name, b.Name}
		seq := s.seqs[k] + max(t.SeqStart, 1)
		known := func(name string) bool { _, ok := vals[name]; return ok }
		u, err := expand(t.URL, known, vals, seq, url.PathEscape)
		if err == nil {
			u, err = normURL(u)
		}
		if err != nil {
			return failf("submitting form %q failed: its result page has no valid URL: %v", f.Name, err)
		}
		if len(u) > maxURL {
			return failf("submitting form %q failed: its result page's URL would be %d bytes long, over the limit of %d", f.Name, len(u), maxURL)
		}
		np := Page{URL: u, Links: templateLinks(t.Links)}
		np.Title, err = expand(t.Title, known, vals, seq, nil)
		if err != nil {
			return failf("submitting form %q failed: %v", f.Name, err)
		}
		// The result page must be as valid as an authored one: a title
		// that echoes an empty field falls back to the URL, a block that
		// echoes one is left out, and echoes are cut to the size limits.
		if strings.TrimSpace(np.Title) == "" {
			np.Title = u
		}
		np.Title = clip(np.Title, maxName)
		np.Blocks = []Block{}
		for _, bl := range t.Blocks {
			text, err := expand(bl.Text, known, vals, seq, nil)
			if err != nil {
				return failf("submitting form %q failed: %v", f.Name, err)
			}
			if text != "" {
				np.Blocks = append(np.Blocks, Block{Kind: bl.Kind, Text: clip(text, maxText)})
			}
		}
		s.seqs[k]++
		if old := s.world.page(u); old != nil {
			*old = np
		} else {
			s.world.Pages = append(s.world.Pages, np)
		}
		s.changed(partWeb)
		dest = s.world.page(u)
	}
	s.load(dest)
	return s.shown(fmt.Sprintf("Submitted form %q with button %q; now at %s.", f.Name, b.Name, dest.URL))
}

// Size limits of the world schema, in characters.
const (
	maxURL  = 2048
	maxName = 200
	maxText = 65536
)

// clip cuts s to at most n characters, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func templateLinks(ls []Link) []Link {
	if len(ls) == 0 {
		return nil
	}
	return slices.Clone(ls)
}

func fieldLabel(f *Form, name string) string {
	for _, fl := range f.Fields {
		if fl.Name == name {
			return strconv.Quote(fl.Label)
		}
	}
	return strconv.Quote(name)
}

// role is a field type's ARIA role, as an accessibility snapshot names it.
func role(fieldType string) string {
	switch fieldType {
	case "number":
		return "spinbutton"
	case "select":
		return "combobox"
	}
	return "textbox"
}

// renderSnapshot writes a page as a text accessibility snapshot, the form
// a model reads best: one line per element, names quoted.
func renderSnapshot(v *PageView) string {
	if v == nil {
		return "No page is open."
	}
	// Appended by hand rather than with fmt: a snapshot is rendered on
	// every browser call.
	b := make([]byte, 0, 1024)
	b = append(b, "Page: "...)
	b = strconv.AppendQuote(b, v.Title)
	b = append(b, "\nURL: "...)
	b = append(b, v.URL...)
	b = append(b, '\n')
	for _, bl := range v.Blocks {
		switch bl.Kind {
		case "h1", "h2", "h3":
			b = append(b, "- heading "...)
			b = strconv.AppendQuote(b, bl.Text)
			b = append(b, " [level="...)
			b = append(b, bl.Kind[1], ']', '\n')
		case "p":
			b = append(b, "- paragraph: "...)
			b = append(b, bl.Text...)
			b = append(b, '\n')
		case "li":
			b = append(b, "- listitem: "...)
			b = append(b, bl.Text...)
			b = append(b, '\n')
		case "code":
			b = append(b, "- code: "...)
			b = strconv.AppendQuote(b, bl.Text)
			b = append(b, '\n')
		}
	}
	for _, l := range v.Links {
		b = append(b, "- link "...)
		b = strconv.AppendQuote(b, l.Name)
		b = append(b, " -> "...)
		b = append(b, l.Href...)
		b = append(b, '\n')
	}
	for _, f := range v.Forms {
		b = append(b, "- form "...)
		b = strconv.AppendQuote(b, f.Name)
		b = append(b, ":\n"...)
		for _, fl := range f.Fields {
			b = append(b, "  - "...)
			b = append(b, role(fl.Type)...)
			b = append(b, ' ')
			b = strconv.AppendQuote(b, fl.Label)
			var attrs []string
			if fl.Type == "textarea" {
				attrs = append(attrs, "multiline")
			}
			if fl.Type == "email" {
				attrs = append(attrs, "email")
			}
			if fl.Required {
				attrs = append(attrs, "required")
			}
			if fl.Options != nil {
				attrs = append(attrs, "options: "+quoteList(fl.Options))
			}
			if len(attrs) > 0 {
				b = append(b, " ["...)
				b = append(b, strings.Join(attrs, ", ")...)
				b = append(b, ']')
			}
			b = append(b, ": "...)
			b = strconv.AppendQuote(b, fl.Value)
			b = append(b, '\n')
		}
		for _, name := range f.Buttons {
			b = append(b, "  - button "...)
			b = strconv.AppendQuote(b, name)
			b = append(b, '\n')
		}
	}
	return string(bytes.TrimSuffix(b, []byte("\n")))
}
