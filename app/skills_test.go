package main

import (
	"errors"
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
	elements := []string{"html", "head", "body", "table", "thead", "tbody", "tr", "th", "td", "a", "div", "span"}
	attrs := []string{"id", "class", "href", "title", "scope", "data-bundle"}
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
