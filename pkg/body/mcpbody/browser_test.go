//go:build bodies

package mcpbody_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody"
	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/skill"
)

func dialBrowser(t *testing.T, ctx context.Context, pw *mcpbodytest.Server) *mcpbody.Body {
	t.Helper()
	bd, err := mcpbody.Dial(ctx, pw.URL, mcpbody.Options{Kind: body.KindBrowser, Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bd.Close(context.Background()) })
	return bd
}

// visit navigates and returns the state's hash and shape.
func visit(t *testing.T, ctx context.Context, bd *mcpbody.Body, url string) (hash, shape string) {
	t.Helper()
	res, err := bd.Call(ctx, "browser_navigate", map[string]any{"url": url})
	if err != nil || res.IsError {
		t.Fatalf("navigate %s: %v %s", url, err, res.Text)
	}
	st, err := bd.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hash, shape, err = skill.StateHashes(st)
	if err != nil {
		t.Fatal(err)
	}
	return hash, shape
}

// TestBrowserStateNormalization: identical visits hash alike, in the same
// browser context and in a fresh one, although Playwright numbers the
// elements differently and counts a console error only on the first
// visit; other text in the same layout changes the hash and keeps the
// shape; another layout changes both.
func TestBrowserStateNormalization(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pw := mcpbodytest.Playwright(t)
	web := startSite(t)

	first := dialBrowser(t, ctx, pw)
	h1, s1 := visit(t, ctx, first, web.URL+"/")
	visit(t, ctx, first, web.URL+"/about")
	h2, s2 := visit(t, ctx, first, web.URL+"/")
	if h1 != h2 || s1 != s2 {
		t.Errorf("a second visit in the same context differs: %s/%s then %s/%s", h1, s1, h2, s2)
	}
	fresh := dialBrowser(t, ctx, pw)
	if h3, _ := visit(t, ctx, fresh, web.URL+"/"); h3 != h1 {
		t.Errorf("a visit in a fresh context differs: %s, want %s", h3, h1)
	}

	hd, sd := visit(t, ctx, first, web.URL+"/docs")
	web.setDocs("retitled")
	hr, sr := visit(t, ctx, first, web.URL+"/docs")
	if hr == hd || sr != sd {
		t.Errorf("other text, same layout: hash changed %v (want true), shape kept %v (want true)", hr != hd, sr == sd)
	}
	web.setDocs("relaid")
	hl, sl := visit(t, ctx, first, web.URL+"/docs")
	if hl == hd || sl == sd {
		t.Errorf("another layout: hash changed %v, shape changed %v (want both)", hl != hd, sl != sd)
	}
	web.setDocs("original")
	if h, s := visit(t, ctx, first, web.URL+"/docs"); h != hd || s != sd {
		t.Errorf("the original page again differs from its first visit")
	}
}

// TestBrowserRefsAreTheBodys: the model reads the body's references in
// results, and a call with one acts on the element it names, whatever the
// server calls it now.
func TestBrowserRefsAreTheBodys(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pw := mcpbodytest.Playwright(t)
	web := startSite(t)
	bd := dialBrowser(t, ctx, pw)
	visit(t, ctx, bd, web.URL+"/about")
	// The second page of a context: Playwright's references are now f1e…
	res, err := bd.Call(ctx, "browser_navigate", map[string]any{"url": web.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "[ref=f") || !strings.Contains(res.Text, "### Page after the call") {
		t.Fatalf("the result does not show the page with the body's references:\n%s", res.Text)
	}
	ref := refOf(t, res.Text, "link", "Docs")
	if res, err = bd.Call(ctx, "browser_click", map[string]any{"target": ref, "element": "Docs link"}); err != nil || res.IsError {
		t.Fatalf("click %s: %v\n%s", ref, err, res.Text)
	}
	st, err := bd.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if url := st.(map[string]any)["url"]; url != web.URL+"/docs" {
		t.Errorf("after clicking the Docs link the page is %v", url)
	}
}

// refOf finds the body's reference of the element role "name" in a text.
func refOf(t *testing.T, text, role, name string) string {
	t.Helper()
	marker := role + ` "` + name + `" [ref=`
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("no %s %q in:\n%s", role, name, text)
	}
	rest := text[i+len(marker):]
	return rest[:strings.IndexByte(rest, ']')]
}
