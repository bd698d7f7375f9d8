package main

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"workbench/pkg/store"
)

// TestTableHTMLKeepsHostileTextInert builds the library table from
// records whose every string is markup and checks, with an HTML parser,
// that the table holds only the elements and attributes the page writes
// and that each string comes back as the text it was.
func TestTableHTMLKeepsHostileTextInert(t *testing.T) {
	hostile := func(field string) string {
		return field + ` "'><script>alert(1)</script><img src=x onerror="alert(2)"> &amp; <a href="javascript:alert(3)">x</a>`
	}
	rows := []store.Skill{{
		ID: hostile("id"), Name: hostile("name"), Slug: hostile("slug"), Description: hostile("description"),
		Version: 2, BundleHash: hostile("hash"), Verdict: hostile("verdict"), ReplayCount: 3,
		LastReplay: &store.ReplaySummary{Fidelity: 0.5, Level: hostile("level"), Status: hostile("status")},
	}, {
		ID: "plain", Name: "Plain", Slug: "plain", Description: "no replay", Version: 1, BundleHash: "sha256:ab", Verdict: "pass",
	}}
	p := &skillsPage{list: store.SkillList{Skills: rows, Matching: 2, Total: 2}, verified: map[string]verdictCheck{
		"sha256:ab": {err: errors.New(hostile("error"))},
	}}
	doc, err := html.Parse(strings.NewReader("<!doctype html><body>" + p.tableHTML()))
	if err != nil {
		t.Fatal(err)
	}
	elements := []string{"html", "head", "body", "table", "thead", "tbody", "tr", "th", "td", "a", "div", "span", "button"}
	attrs := []string{"id", "class", "href", "title", "scope", "data-bundle", "type", "data-skill", "data-name", "aria-label"}
	// The Delete buttons carry the skill's id and name back as they were.
	wantAttr := map[string][]string{
		"data-skill": {hostile("id"), "plain"},
		"data-name":  {hostile("name"), "Plain"},
		"aria-label": {"Delete " + hostile("name") + "…", "Delete Plain…"},
	}
	gotAttr := map[string][]string{}
	var texts = map[string]string{} // class of the element → its text
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if !slices.Contains(elements, n.Data) {
				t.Errorf("element <%s> in the table", n.Data)
			}
			for _, a := range n.Attr {
				if !slices.Contains(attrs, a.Key) {
					t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
				}
				if a.Key == "href" && a.Val != "/skills/"+hostile("id") && a.Val != "/skills/plain" {
					t.Errorf("link to %q", a.Val)
				}
				if _, ok := wantAttr[a.Key]; ok {
					gotAttr[a.Key] = append(gotAttr[a.Key], a.Val)
				}
			}
			for _, a := range n.Attr {
				if a.Key == "class" {
					texts[a.Val] += textOf(n) + "\n"
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for k, want := range wantAttr {
		if !slices.Equal(gotAttr[k], want) {
			t.Errorf("%s values %q, want %q", k, gotAttr[k], want)
		}
	}
	for class, want := range map[string]string{
		"skill-name":        hostile("name") + "\nPlain\n",
		"skill-description": hostile("description") + "\nno replay\n",
		"skill-claimed":     hostile("verdict") + "\npass\n",
		"skill-fidelity":    "0.50 · " + hostile("level") + " · " + hostile("status") + "\nnever replayed\n",
		"skill-verified":    "verifying…\nerror " + hostile("error") + "\n",
	} {
		if got := texts[class]; got != want {
			t.Errorf("text of .%s:\n%q\nwant\n%q", class, got, want)
		}
	}
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// TestSortInURL: the listing's order is read from ?sort= and written back
// to it, the default leaving no query at all.
func TestSortInURL(t *testing.T) {
	tests := []struct {
		url  string
		want store.Sort
		back string
	}{
		{"/skills", store.SortNewest, "/skills"},
		{"/skills?sort=name", store.SortName, "/skills?sort=name"},
		{"/skills?sort=updated", store.SortUpdated, "/skills?sort=updated"},
		{"/skills?sort=verdict", store.SortVerdict, "/skills?sort=verdict"},
		{"/skills?sort=newest", store.SortNewest, "/skills"},
		{"/skills?sort=size", store.SortNewest, "/skills"},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		got := sortOf(u)
		if got != tc.want {
			t.Errorf("sortOf(%s) = %q, want %q", tc.url, got, tc.want)
		}
		if back := withSort(*u, got).String(); back != tc.back {
			t.Errorf("withSort(%s, %q) = %s, want %s", tc.url, got, back, tc.back)
		}
	}
	if _, ok := sortLabels[store.SortVerdict]; !ok || len(sortLabels) != len(store.Sorts()) {
		t.Errorf("every order needs a label: %v", sortLabels)
	}
}
