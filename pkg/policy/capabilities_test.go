package policy

import (
	"context"
	"strings"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/skill"
)

func TestCapabilitiesPolicyLoadsAgainstTheSchema(t *testing.T) {
	e, err := Load(CapabilitiesPolicyJSON())
	if err != nil {
		t.Fatal(err)
	}
	if e.ID() != CapabilitiesPolicyID || Capabilities().ID() != CapabilitiesPolicyID {
		t.Errorf("policy id %q", e.ID())
	}
}

func TestCapabilitiesPolicyDecisions(t *testing.T) {
	yes, no := true, false
	ro := body.Annotations{ReadOnlyHint: &yes}
	rw := body.Annotations{ReadOnlyHint: &no}
	del := body.Annotations{ReadOnlyHint: &no, DestructiveHint: &yes}
	tests := []struct {
		name        string
		capability  string
		ann         body.Annotations
		trusted     bool
		destructive bool
		decision    string
		rule        string
	}{
		{"workbench action", "ambient", rw, true, false, skill.DecisionAllow, "ambient"},
		{"trusted read", "&body.os", ro, true, false, skill.DecisionAllow, "read"},
		{"untrusted read is unknown", "&mcp.x", ro, false, false, skill.DecisionApprovalRequired, "write-approval"},
		{"browser write", "&body.browser", rw, true, false, skill.DecisionAllow, "browser-write"},
		{"memory store", "&memory.episodic", rw, true, false, skill.DecisionAllow, "memory-store"},
		{"host write", "&body.os", rw, true, false, skill.DecisionApprovalRequired, "write-approval"},
		{"host delete", "&body.os", del, true, false, skill.DecisionApprovalRequired, "write-approval"},
		{"host delete, destructive mode", "&body.os", del, true, true, skill.DecisionAllow, "write-destructive-mode"},
	}
	e := Capabilities()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Capability: tt.capability, ActionType: "x.y", Annotations: tt.ann,
				TrustedServer: tt.trusted, DestructiveMode: tt.destructive, Declared: []string{tt.capability}}
			a, err := e.Authorize(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if a.Decision != tt.decision || !strings.HasPrefix(a.Reason, tt.rule+": ") {
				t.Errorf("got %s (%s), want %s by %s", a.Decision, a.Reason, tt.decision, tt.rule)
			}
			if pf := e.Preview(req); pf.Rule != tt.rule || pf.Authorization.Decision != tt.decision {
				t.Errorf("preview %s by %s", pf.Authorization.Decision, pf.Rule)
			}
		})
	}
}
