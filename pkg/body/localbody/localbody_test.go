package localbody

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRestartDelay(t *testing.T) {
	r := DefaultRestart()
	var got []time.Duration
	for a := 1; a <= r.Attempts; a++ {
		got = append(got, r.delay(a))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}
	if len(got) != len(want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("delays %v, want %v", got, want)
		}
	}
	if d := (Restart{Delay: time.Second, MaxDelay: 3 * time.Second}).delay(10); d != 3*time.Second {
		t.Errorf("delay 10 = %s, want the 3 s cap", d)
	}
}

func TestTail(t *testing.T) {
	var tl tail
	tl.Write([]byte("first line\n"))
	tl.Write([]byte(strings.Repeat("x", tailBytes-5)))
	tl.Write([]byte("\nlast words\n\n"))
	if s := tl.String(); len(s) != tailBytes || !strings.HasSuffix(s, "last words\n\n") {
		t.Errorf("kept %d bytes ending %q, want the last %d", len(s), s[len(s)-20:], tailBytes)
	}
	if l := tl.lastWords(); l != "last words" {
		t.Errorf("last words %q", l)
	}
	var node tail
	node.Write([]byte("node:internal/modules/cjs/loader:1228\n  throw err;\n\nError: Cannot find module '/x/cli.js'\n    at Module._resolveFilename\n{\n  code: 'MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\n"))
	if l := node.lastWords(); l != "Error: Cannot find module '/x/cli.js'" {
		t.Errorf("last words of a Node.js error %q", l)
	}
	tl.Write([]byte(strings.Repeat("y", 3*tailBytes)))
	if s := tl.String(); s != strings.Repeat("y", tailBytes) {
		t.Errorf("one write larger than the tail: kept %d bytes", len(s))
	}
}

// TestMissing: what a body needs and does not find is named, with the
// make target that installs it, before anything starts.
func TestMissing(t *testing.T) {
	self, err := os.Executable() // stands for an installed node
	if err != nil {
		t.Fatal(err)
	}
	modules := t.TempDir()
	for _, d := range []string{"@playwright/mcp", "@modelcontextprotocol/server-filesystem/dist"} {
		os.MkdirAll(modules+"/"+d, 0o755)
	}
	os.WriteFile(modules+"/@playwright/mcp/cli.js", nil, 0o644)
	os.WriteFile(modules+"/@modelcontextprotocol/server-filesystem/dist/index.js", nil, 0o644)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("CHROMIUM", "")
	installed := Options{Node: self, NodeModules: modules}
	tests := []struct {
		name  string
		start func(context.Context) (*Body, error)
		what  string
		make  string
	}{
		{"no node", func(ctx context.Context) (*Body, error) {
			return StartBrowser(ctx, Options{Node: "/nonexistent/node", NodeModules: modules}, Browser{Chromium: self})
		}, "Node.js", "node"},
		{"no playwright", func(ctx context.Context) (*Body, error) {
			return StartBrowser(ctx, Options{Node: self, NodeModules: t.TempDir()}, Browser{Chromium: self})
		}, "Playwright MCP", "node-deps"},
		{"no filesystem server", func(ctx context.Context) (*Body, error) {
			return StartHost(ctx, Options{Node: self, NodeModules: t.TempDir()}, Host{Dir: t.TempDir()})
		}, "the filesystem MCP server", "node-deps"},
		{"no chromium", func(ctx context.Context) (*Body, error) {
			return StartBrowser(ctx, installed, Browser{Chromium: "/nonexistent/chromium"})
		}, "Chromium", "chromium"},
		{"headed without a display", func(ctx context.Context) (*Body, error) {
			return StartBrowser(ctx, installed, Browser{Chromium: self, Headed: true})
		}, "a display for a headed browser", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.start(context.Background())
			var me *MissingError
			if !errors.As(err, &me) {
				if b != nil {
					b.Stop()
				}
				t.Fatalf("err %v, want a *MissingError", err)
			}
			if me.What != tt.what || me.Make != tt.make {
				t.Errorf("%q names %q and make %q, want %q and %q", err, me.What, me.Make, tt.what, tt.make)
			}
			if tt.make != "" && !strings.Contains(err.Error(), "`make "+tt.make+"`") {
				t.Errorf("%q does not name make %s", err, tt.make)
			}
		})
	}
}

func TestWithMark(t *testing.T) {
	t.Setenv(markVar, "inherited-from-an-owner")
	env := withMark(markVar + "=browser-1")
	n := 0
	for _, e := range env {
		if strings.HasPrefix(e, markVar+"=") {
			n++
			if e != markVar+"=browser-1" {
				t.Errorf("kept %q", e)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d marks, want 1", n)
	}
}
