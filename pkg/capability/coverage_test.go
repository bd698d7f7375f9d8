package capability

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"workbench/pkg/workbench"
)

// The ledger at the repository root stays in step with the catalog: each
// native entry names one of the workbench's actions, and its route's
// placeholders are members of that action's input.
func TestCoverageLedgerMatchesCatalog(t *testing.T) {
	data, err := os.ReadFile("../../capability-coverage.json")
	if err != nil {
		t.Fatal(err)
	}
	cov, err := ParseCoverage(data)
	if err != nil {
		t.Fatal(err)
	}
	wb := withFlows(&BuiltIn{}, workbench.Deps{})
	for _, n := range cov.Native {
		src, name, _ := SplitID(n.CapabilityID)
		if src != SourceWorkbench || !slices.Contains(Actions(), name) {
			t.Errorf("%s: not one of the workbench's actions %v", n.CapabilityID, Actions())
			continue
		}
		caps, _ := wb.List(t.Context())
		c := byID(t, caps)[n.CapabilityID]
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(c.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		for _, p := range n.Placeholders() {
			if _, ok := schema.Properties[p]; !ok || !slices.Contains(schema.Required, p) {
				t.Errorf("%s: route %s needs %q, which its input does not require", n.CapabilityID, n.Route, p)
			}
		}
	}
	// Every workbench action is either native or gets the generated form;
	// today each has a workspace, and the ledger says so.
	for _, a := range Actions() {
		if _, ok := cov.Lookup(ID(SourceWorkbench, a)); !ok {
			t.Errorf("workbench:%s has no entry; add its workspace or accept the generated form deliberately", a)
		}
	}
	if _, ok := cov.Lookup("simulator:browser_click"); ok {
		t.Error("a tool is listed native")
	}
}

func TestParseCoverageErrors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"ledger":"x","version":1,"default":"generated","native":[]}`, "/ledger"},
		{`{"ledger":"capability-coverage","version":2,"default":"generated","native":[]}`, "/version"},
		{`{"ledger":"capability-coverage","version":1,"default":"native","native":[]}`, "/default"},
		{`{"ledger":"capability-coverage","version":1,"default":"generated","native":[{"capability_id":"nope","route":"/","workspace":"w","why":"y"}]}`, "/native/0/capability_id"},
		{`{"ledger":"capability-coverage","version":1,"default":"generated","native":[{"capability_id":"a:b","route":"x","workspace":"w","why":"y"}]}`, "/native/0/route"},
		{`{"ledger":"capability-coverage","version":1,"default":"generated","native":[{"capability_id":"a:b","route":"/","workspace":"w","why":"y"},{"capability_id":"a:b","route":"/","workspace":"w","why":"y"}]}`, "/native/1/capability_id"},
		{`{"ledger":"capability-coverage","version":1,"default":"generated","native":[],"extra":1}`, "unknown field"},
	}
	for _, tt := range tests {
		if _, err := ParseCoverage([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %s", tt.doc, err, tt.want)
		}
	}
}

func TestNativePath(t *testing.T) {
	n := NativeWorkspace{Route: "/skills/{skill_id}/replay"}
	if p, err := n.Path(json.RawMessage(`{"skill_id":"019e-a/b"}`)); err != nil || p != "/skills/019e-a%2Fb/replay" {
		t.Errorf("%q %v", p, err)
	}
	if _, err := n.Path(json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "/skill_id") {
		t.Errorf("missing member: %v", err)
	}
}
