package sim_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/skill"
	"workbench/schemas"
)

// step is one tool call of a test script.
type step struct {
	tool string
	args map[string]any
}

// obj is shorthand for tool arguments.
type obj = map[string]any

func validator(t testing.TB) *schemas.Validator {
	t.Helper()
	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// worldBytes returns a fixture world, or a world from testdata when name
// ends in .json.
func worldBytes(t testing.TB, name string) []byte {
	t.Helper()
	var data []byte
	var err error
	if filepath.Ext(name) == ".json" {
		data, err = os.ReadFile(filepath.Join("testdata", name))
	} else {
		data, err = fixtures.World(name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func load(t testing.TB, v *schemas.Validator, name string) *sim.Sim {
	t.Helper()
	s, err := sim.NewWithValidator(worldBytes(t, name), v)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return s
}

// run performs steps, failing the test on a call error or a tool error.
func run(t testing.TB, s *sim.Sim, steps ...step) body.Result {
	t.Helper()
	var r body.Result
	for _, st := range steps {
		var err error
		r, err = s.Call(context.Background(), st.tool, st.args)
		if err != nil {
			t.Fatalf("%s %v: %v", st.tool, st.args, err)
		}
		if r.IsError {
			t.Fatalf("%s %v: tool error: %s", st.tool, st.args, r.Text)
		}
	}
	return r
}

// hashes returns the state and shape hashes of s, computed from State as
// any body's would be.
func hashes(t testing.TB, s *sim.Sim) (state, shape string) {
	t.Helper()
	st, err := s.State(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	state, err = skill.StateHash(st)
	if err != nil {
		t.Fatal(err)
	}
	shape, err = skill.ShapeHash(st)
	if err != nil {
		t.Fatal(err)
	}
	return state, shape
}

func nav(url string) step { return step{sim.BrowserNavigate, obj{"url": url}} }

func typ(field, text string) step { return step{sim.BrowserType, obj{"field": field, "text": text}} }

func click(name string) step { return step{sim.BrowserClick, obj{"name": name}} }

func sh(cmd string) step { return step{sim.ShellExec, obj{"command": cmd}} }
