package sim

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/skill"
	"workbench/schemas"
)

// The cached, part-by-part encoding and the hashes computed from it equal
// the state encoded and hashed from scratch after every call of a long pseudo-random session in every fixture world:
// no change is left without invalidating the part it touched.
func TestCacheMatchesFreshEncoding(t *testing.T) {
	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	pool := []struct {
		tool string
		args map[string]any
	}{
		{BrowserNavigate, map[string]any{"url": "https://weather.workbench.test/"}},
		{BrowserNavigate, map[string]any{"url": "https://support.workbench.test/contact"}},
		{BrowserNavigate, map[string]any{"url": "https://git.workbench.test/"}},
		{BrowserNavigate, map[string]any{"url": "https://status.workbench.test/"}},
		{BrowserSnapshot, nil},
		{BrowserType, map[string]any{"field": "City", "text": "Paris"}},
		{BrowserType, map[string]any{"field": "City", "text": "Nowhere"}},
		{BrowserType, map[string]any{"field": "Message", "text": "hello"}},
		{BrowserType, map[string]any{"field": "Topic", "text": "Billing"}},
		{BrowserType, map[string]any{"field": "Repository name", "text": "widget"}},
		{BrowserSubmit, map[string]any{}},
		{BrowserClick, map[string]any{"name": "Forecasts"}},
		{BrowserClick, map[string]any{"name": "Incident details"}},
		{BrowserClick, map[string]any{"name": "Contact support"}},
		{FileList, nil},
		{FileRead, map[string]any{"path": "/etc/hostname"}},
		{FileWrite, map[string]any{"path": "/home/user/a.txt", "content": "a"}},
		{FileWrite, map[string]any{"path": "/home/user/a.txt", "content": "b", "append": true}},
		{FileDelete, map[string]any{"path": "/home/user/a.txt"}},
		{ShellExec, map[string]any{"command": "mkdir -p /tmp/x/y"}},
		{ShellExec, map[string]any{"command": "cd /tmp/x"}},
		{ShellExec, map[string]any{"command": "cd"}},
		{ShellExec, map[string]any{"command": "echo hi >> /tmp/x/y/z"}},
		{ShellExec, map[string]any{"command": "rm /tmp/x/y/z"}},
		{ShellExec, map[string]any{"command": "rmdir /tmp/x/y"}},
		{ShellExec, map[string]any{"command": "touch /home/user/t"}},
	}
	ctx := context.Background()
	for _, name := range fixtures.Worlds() {
		data, err := fixtures.World(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewWithValidator(data, v)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, uint64(len(name))))
		check := func(after string) {
			t.Helper()
			// Hashes first, while the whole is not joined: they are
			// then computed from the parts alone.
			hash, shape, err := s.StateHashes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.encoded()
			if err != nil {
				t.Fatal(err)
			}
			want, err := canonical(s.stateDoc())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("%s: after %s the cached state differs from a fresh encoding", name, after)
			}
			wantHash, wantShape, err := skill.StateHashes(json.RawMessage(want))
			if err != nil {
				t.Fatal(err)
			}
			if hash != wantHash || shape != wantShape {
				t.Fatalf("%s: after %s StateHashes gives %s %s, a fresh encoding %s %s", name, after, hash, shape, wantHash, wantShape)
			}
		}
		for i := range 400 {
			switch i % 97 {
			case 50:
				if err := s.Mutate(func(w *World) error { w.Pages[0].Title += "!"; return nil }); err != nil {
					t.Fatal(err)
				}
				check("Mutate")
			case 96:
				c := s.Clone()
				s.Reset()
				check("Reset")
				s = c
				check("Clone")
			}
			c := pool[rng.IntN(len(pool))]
			if _, err := s.Call(ctx, c.tool, c.args); err != nil {
				t.Fatal(err)
			}
			check(c.tool)
		}
	}
}
