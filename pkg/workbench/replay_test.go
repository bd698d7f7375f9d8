package workbench_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func verifier(t testing.TB) *verify.Verifier {
	t.Helper()
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// taught is the fixture skill: taught on the simulator, with one url
// input, repo_url.
func taught(t testing.TB) *skill.Bundle {
	t.Helper()
	b, _, err := skill.Decode(fixture(t, "valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPrepareReplay(t *testing.T) {
	const other = "https://git.workbench.test/acme/other"
	b := taught(t)
	onBrowser := *b
	onBrowser.Manifest.BodyChoice = body.KindBrowser
	onNothing := *b
	onNothing.Manifest.BodyChoice = "submarine"
	otherPolicy := *b
	otherPolicy.Manifest.DelegaticPolicyID = "another-policy"
	noBody := workbench.New(workbench.Deps{})
	withBodies := workbench.New(workbench.Deps{Bodies: fakeBodies(nil)})
	for _, tc := range []struct {
		name  string
		w     *workbench.Flows
		req   workbench.ReplayRequest
		check func(t *testing.T, s *workbench.ReplaySetup, err error)
	}{
		{"taught inputs", noBody, workbench.ReplayRequest{Bundle: b}, func(t *testing.T, s *workbench.ReplaySetup, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind != body.KindSimulator || !s.Deterministic() || s.World == "" || len(s.WorldData) == 0 {
				t.Errorf("setup %+v", s)
			}
			if s.Input["repo_url"] != b.Evidence.Scenario.Inputs["repo_url"] || s.ModelBound != b.Trace.ModelBound() {
				t.Errorf("input %v, model-bound %v", s.Input, s.ModelBound)
			}
		}},
		{"typed value", noBody, workbench.ReplayRequest{Bundle: b, Values: []teach.Value{{Name: "repo_url", Raw: other}}}, wantInput(other)},
		{"JSON value", noBody, workbench.ReplayRequest{Bundle: b, Input: map[string]any{"repo_url": other}}, wantInput(other)},
		{"typed wins over JSON", noBody, workbench.ReplayRequest{Bundle: b, Input: map[string]any{"repo_url": "https://a.test/"},
			Values: []teach.Value{{Name: "repo_url", Raw: other}}}, wantInput(other)},
		{"unknown input", noBody, workbench.ReplayRequest{Bundle: b, Values: []teach.Value{{Name: "city", Raw: "Paris"}}}, wantInputError(teach.FieldInput, "city")},
		{"unknown JSON input", noBody, workbench.ReplayRequest{Bundle: b, Input: map[string]any{"city": "Paris"}}, wantInputError(teach.FieldInput, "city")},
		{"given twice", noBody, workbench.ReplayRequest{Bundle: b, Values: []teach.Value{{Name: "repo_url", Raw: "https://a.test/"}, {Name: "repo_url", Raw: other}}}, wantInputError(teach.FieldInput, "repo_url")},
		{"not a URL", noBody, workbench.ReplayRequest{Bundle: b, Values: []teach.Value{{Name: "repo_url", Raw: "git.workbench.test/acme"}}}, wantInputError(teach.FieldInput, "repo_url")},
		{"not http", noBody, workbench.ReplayRequest{Bundle: b, Values: []teach.Value{{Name: "repo_url", Raw: "javascript:alert(1)"}}}, wantInputError(teach.FieldInput, "repo_url")},
		{"JSON URL checked too", noBody, workbench.ReplayRequest{Bundle: b, Input: map[string]any{"repo_url": 42.0}}, wantInputError(teach.FieldInput, "repo_url")},
		{"no such world", noBody, workbench.ReplayRequest{Bundle: b, World: "atlantis"}, func(t *testing.T, s *workbench.ReplaySetup, err error) {
			if err == nil {
				t.Fatal("no error for an unknown world")
			}
		}},
		{"other policy", noBody, workbench.ReplayRequest{Bundle: &otherPolicy}, func(t *testing.T, s *workbench.ReplaySetup, err error) {
			var pe *workbench.PolicyError
			if !errors.As(err, &pe) || pe.PolicyID != "another-policy" {
				t.Errorf("err = %v, want a PolicyError", err)
			}
		}},
		{"MCP body without a factory", noBody, workbench.ReplayRequest{Bundle: &onBrowser}, wantBodyUnavailable(body.KindBrowser)},
		{"unknown body", withBodies, workbench.ReplayRequest{Bundle: &onNothing}, wantBodyUnavailable("submarine")},
		{"MCP body", withBodies, workbench.ReplayRequest{Bundle: &onBrowser, Values: []teach.Value{{Name: "repo_url", Raw: "ftp://x"}}}, wantInputError(teach.FieldInput, "repo_url")},
		{"MCP body has no world", withBodies, workbench.ReplayRequest{Bundle: &onBrowser, World: "git-basic"}, wantInputError(teach.FieldWorld, "git-basic")},
		{"MCP body setup", withBodies, workbench.ReplayRequest{Bundle: &onBrowser, Destructive: true}, func(t *testing.T, s *workbench.ReplaySetup, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind != body.KindBrowser || s.Deterministic() || s.WorldData != nil || !s.Destructive {
				t.Errorf("setup %+v", s)
			}
		}},
		{"no bundle", noBody, workbench.ReplayRequest{}, func(t *testing.T, s *workbench.ReplaySetup, err error) {
			if err == nil {
				t.Error("no error without a bundle")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flows := tc.w
			if flows == nil {
				flows = workbench.New(workbench.Deps{})
			}
			s, err := flows.PrepareReplay(tc.req)
			tc.check(t, s, err)
		})
	}
}

func wantInput(url string) func(t *testing.T, s *workbench.ReplaySetup, err error) {
	return func(t *testing.T, s *workbench.ReplaySetup, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if s.Input["repo_url"] != url {
			t.Errorf("repo_url = %v, want %s", s.Input["repo_url"], url)
		}
	}
}

func wantInputError(field, name string) func(t *testing.T, s *workbench.ReplaySetup, err error) {
	return func(t *testing.T, s *workbench.ReplaySetup, err error) {
		t.Helper()
		var ie *teach.InputError
		if !errors.As(err, &ie) || ie.Field != field || ie.Name != name {
			t.Errorf("err = %v, want an InputError of field %s naming %q", err, field, name)
		}
	}
}

func wantBodyUnavailable(kind body.Kind) func(t *testing.T, s *workbench.ReplaySetup, err error) {
	return func(t *testing.T, s *workbench.ReplaySetup, err error) {
		t.Helper()
		var be *workbench.BodyUnavailableError
		if !errors.As(err, &be) || be.Kind != kind {
			t.Errorf("err = %v, want a BodyUnavailableError for %s", err, kind)
		}
	}
}
