package policy_test

import (
	"context"
	"fmt"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
)

// The bundled policy decides a skill's host actions: reads pass, a write
// is refused until the user turns on destructive mode, and a capability the
// skill never declared is refused whatever the mode.
func ExampleEngine_Authorize() {
	clock := func() time.Time { return time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC) }
	engine := policy.Default(policy.WithClock(clock))

	yes, no := true, false
	fileRead := body.Annotations{ReadOnlyHint: &yes}
	fileWrite := body.Annotations{ReadOnlyHint: &no, DestructiveHint: &no}
	declared := []string{skill.CapabilityOS}

	for _, req := range []policy.Request{
		{Capability: skill.CapabilityOS, ActionType: "os.file_read", Annotations: fileRead, TrustedServer: true, Declared: declared},
		{Capability: skill.CapabilityOS, ActionType: "os.file_write", Annotations: fileWrite, TrustedServer: true, Declared: declared},
		{Capability: skill.CapabilityOS, ActionType: "os.file_write", Annotations: fileWrite, TrustedServer: true, Declared: declared, DestructiveMode: true},
		{Capability: skill.CapabilityBrowser, ActionType: "browser.click", Annotations: fileWrite, TrustedServer: true, Declared: declared},
	} {
		a, err := engine.Authorize(context.Background(), req)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-14s %-5s %s\n", a.ActionType, a.Decision, a.Reason)
	}
	// Output:
	// os.file_read   allow host-read: host reads are allowed
	// os.file_write  deny  host-write: host writes (file_write, file_delete, shell_exec with writes) are denied unless destructive mode is on
	// os.file_write  allow host-write-destructive-mode: host writes are allowed because the user turned on destructive mode
	// browser.click  deny  undeclared: the skill does not declare this capability in capabilities_required
}

// A tool's effect comes from its MCP annotations only when its server is
// trusted; otherwise it is unknown, which the bundled policy treats as a
// write.
func ExampleEffectOf() {
	yes := true
	readOnly := body.Annotations{ReadOnlyHint: &yes}
	fmt.Println(policy.EffectOf(readOnly, true))
	fmt.Println(policy.EffectOf(readOnly, false))
	fmt.Println(policy.EffectOf(body.Annotations{}, true))
	// Output:
	// read
	// unknown
	// write
}
