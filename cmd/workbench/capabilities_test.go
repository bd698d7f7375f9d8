package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi/altbackend"
	"workbench/pkg/capability/httpapi/conformance"
	"workbench/pkg/capability/httpapi/contracttest"
	"workbench/pkg/capability/httpapi/opsbackend"
)

// contractBackend serves a Governor over the simulator through the
// conformance server.
func contractBackend(t *testing.T) string {
	t.Helper()
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := capability.NewCatalog(&capability.Body{Body: s, Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	gov := capability.NewGovernor(context.Background(), cat, capability.GovernorOptions{})
	return contracttest.Start(t, capability.Local{Governor: gov}).URL
}

// The check passes against the three test backends, each written
// independently: the conformance server, altbackend (its two malformed
// entries are unusable, and listed) and opsbackend (several actions per
// capability).
func TestCapabilitiesCheckEveryBackend(t *testing.T) {
	contract := contractBackend(t)
	alt := altbackend.Start(t, 5*time.Millisecond).URL
	ops := opsbackend.Start(t, 5*time.Millisecond).URL
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  []string
		nothere []string
	}{
		{"conformance server, with an invocation", []string{"capabilities", "check", "--invoke", "--capability", "simulator:file_list",
			"--inputs", `{"path":"/tmp"}`, contract}, 0,
			[]string{"conforms  catalog: GET /api/capabilities", "matches capability-catalog", "descriptor of simulator:file_write",
				"matches capability-preview", "invoke simulator:file_list", "matches capability-invoke-answer",
				"follow of run", "matches capability-events-page", "matches capability-runs", "matches capability-approvals",
				" 0 refused", " 0 unusable"},
			[]string{"\ntolerated", "\nrefused"}},
		{"conformance server, no invocation without the flag", []string{"capabilities", "check", contract}, 0,
			[]string{"skipped", "nothing is invoked without --invoke"}, []string{"invoke simulator"}},
		{"the other backend", []string{"capabilities", "check", "--invoke", "--inputs", `{"query":"milk"}`, alt}, 0,
			[]string{"tolerated  catalog: GET /api/capabilities", "items read as capabilities",
				"unusable   catalog entry 5 (broken.prose)", "not a JSON Schema", "unusable   catalog entry 6", "no capability_id",
				"availability is an object", "wrapped as {capability: …}", "decision allow",
				"matches capability-invoke-answer", `HTTP 200, status completed, run "run-1"`, "follow of run run-1",
				"has_more read as more", "data read as runs", "none declared (optional)", " 0 refused, 2 unusable entries"},
			[]string{"\nrefused"}},
		{"the other backend's destructive action is not invoked", []string{"capabilities", "check", "--invoke", "--capability", "notes.purge", alt}, 0,
			[]string{"notes.purge is not read-only (destructive)"}, []string{"invoke notes.purge  "}},
		{"the third backend, one action of several", []string{"capabilities", "check", "--invoke", "--capability", "logs",
			"--inputs", `{"query":"disk"}`, ops}, 0,
			[]string{"catalog read as capabilities", "governed_invoke read as invoke", "path_template read as route",
				"4 usable capabilities, 7 actions", "preflight of logs (action search)", "decision allow", "invoke logs (action search)",
				"HTTP 202, status running", "follow of run", "none declared (optional)", " 0 refused, 0 unusable entries"},
			[]string{"\nrefused", "\nunusable", "/api/approvals"}},
		{"the third backend's destructive action is not invoked", []string{"capabilities", "check", "--invoke", "--capability", "incidents",
			"--action", "purge", "--inputs", `{"older_than_days":3}`, ops}, 0,
			[]string{"incidents (action purge) is not read-only (destructive)", "decision approval_required"}, []string{"\ninvoke incidents"}},
		{"an action the capability does not have", []string{"capabilities", "check", "--capability", "logs", "--action", "drop", ops}, 0,
			[]string{`capability logs has no action "drop"`}, nil},
		{"bad inputs", []string{"capabilities", "check", "--inputs", "[1]", contract}, 2, nil, nil},
		{"no URL", []string{"capabilities", "check"}, 2, nil, nil},
		{"not an origin", []string{"capabilities", "check", "ftp://x"}, 2, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.nothere {
				if strings.Contains(stdout, s) {
					t.Errorf("stdout has %q:\n%s", s, stdout)
				}
			}
		})
	}
	code, stdout, _ := runCmd(t, "", "capabilities", "check", "--json", alt)
	var rep conformance.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || !rep.OK() || rep.Count(conformance.Unusable) != 2 {
		t.Errorf("--json: exit %d, %v, %+v", code, err, rep)
	}
}
