package policy

import (
	_ "embed"

	"workbench/pkg/canonjson"
)

// CapabilitiesPolicyID is the id of the bundled capability palette
// policy.
const CapabilitiesPolicyID = "workbench-capabilities-v1"

// capabilitiesPolicy is the capability palette's policy file, a string
// so that it cannot change.
//
//go:embed capabilities-policy.json
var capabilitiesPolicy string

// CapabilitiesPolicyJSON returns the bundled capability palette policy,
// workbench-capabilities-v1.
func CapabilitiesPolicyJSON() []byte { return []byte(capabilitiesPolicy) }

// Capabilities returns an engine for workbench-capabilities-v1, the policy
// of actions the user invokes from the capability palette (DESIGN §8).
// It differs from workbench-default-v1, which decides a skill's actions,
// in two ways: the invoking user declares the action, so no rule asks
// whether a skill declared it; and a write that workbench-default-v1
// would deny outright (a host write outside destructive mode) instead
// needs approval (decision approval_required), which the user grants
// explicitly on the approvals surface. Like Default it panics only when
// the embedded file is broken, which this package's tests rule out.
func Capabilities(opts ...Option) *Engine {
	doc, err := canonjson.Parse([]byte(capabilitiesPolicy), canonjson.DefaultLimits())
	if err != nil {
		panic("policy: embedded capabilities-policy.json: " + err.Error())
	}
	var p Policy
	if err := doc.Decode(&p); err != nil {
		panic("policy: embedded capabilities-policy.json: " + err.Error())
	}
	if err := checkRules(p); err != nil {
		panic("policy: embedded capabilities-policy.json: " + err.Error())
	}
	return newEngine(p, opts)
}
