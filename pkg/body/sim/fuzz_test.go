package sim

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/skill"
	"workbench/schemas"
)

// Any command line: the shell answers it without a Go error, a line
// Effect calls a read leaves the file tree alone, a line that changed the
// tree says so, and the cached state stays exact.
func FuzzShellExec(f *testing.F) {
	for _, seed := range []string{
		"ls -la", "cat README.txt", "echo 'a b' > x", "echo x >> README.txt", "mkdir -p a/b/c",
		"rm -f nothing README.txt", "rmdir /tmp", "cd reports", "touch t", `echo "q\"uote" \> >f`,
		"cat missing > out", "ls; rm x", "echo $HOME", "cd ..", "cd /", "rm /etc/hostname",
	} {
		f.Add(seed)
	}
	v, err := schemas.New()
	if err != nil {
		f.Fatal(err)
	}
	data, err := fixtures.World("status-and-host")
	if err != nil {
		f.Fatal(err)
	}
	base, err := NewWithValidator(data, v)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, line string) {
		s := base.Clone()
		a := map[string]any{"command": line}
		e, err := s.Effect(ShellExec, a)
		if err != nil {
			t.Fatal(err)
		}
		before := s.World().Host
		r, err := s.Call(ctx, ShellExec, a)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		after := s.World().Host
		same := slices.Equal(before.Dirs, after.Dirs) && mapsEqual(before.Files, after.Files)
		if !e.Write && !same {
			t.Errorf("%q: Effect said read, but the file tree changed: %s", line, r.Text)
		}
		if st, ok := r.Structured.(map[string]any); ok {
			if changed := st["changed"].([]string); len(changed) > 0 && !e.Write {
				t.Errorf("%q: reports changes %v that Effect did not predict", line, changed)
			}
			if (st["exit_code"].(int) != 0) != r.IsError {
				t.Errorf("%q: exit code %v but IsError %v", line, st["exit_code"], r.IsError)
			}
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
			t.Fatalf("%q: cached state differs from a fresh encoding", line)
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Any bytes: New answers without panicking, and a world it accepts
// round-trips: the World it holds, written out and loaded again, gives
// the same state.
func FuzzNew(f *testing.F) {
	for _, name := range fixtures.Worlds() {
		data, err := fixtures.World(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	if data, err := os.ReadFile("testdata/edge-cases.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"schema":"https://opensentience.org/spec/workbench-simulator-world/v0.1","name":"a","description":"d","pages":[],"host":{"cwd":"/"}}`))
	v, err := schemas.New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := NewWithValidator(data, v)
		if err != nil {
			return
		}
		h1, err := s.StateHash()
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(s.World())
		if err != nil {
			t.Fatal(err)
		}
		s2, err := NewWithValidator(out, v)
		if err != nil {
			t.Fatalf("a loaded world does not load again: %v\n%s", err, out)
		}
		h2, _ := s2.StateHash()
		if h1 != h2 {
			t.Fatal("a world written out and loaded again has another state")
		}
		st, _ := s.State(context.Background())
		if h, _ := skill.StateHash(st); h != h1 {
			t.Fatal("StateHash differs from skill.StateHash of State")
		}
	})
}
