package skillpage

import (
	"fmt"
	"net/url"

	"workbench/pkg/policy"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
)

// Setup is what one replay of a stored skill runs with.
type Setup struct {
	// Input is the new input: the recorded inputs overridden by the values
	// the user typed, each typed as the manifest declares.
	Input map[string]any
	// World and WorldData are the simulator world the recording started in.
	World     string
	WorldData []byte
	// Authorizer re-authorizes every replayed action under the skill's
	// policy and declared capabilities.
	Authorizer replay.PolicyAuthorizer
	// ModelBound says a model must choose some parameters again.
	ModelBound bool
}

// PolicyError says the skill names a policy this build cannot apply.
type PolicyError struct{ PolicyID string }

func (e *PolicyError) Error() string {
	return fmt.Sprintf("the skill names the policy %q; only %s is available here", e.PolicyID, skill.DefaultPolicyID)
}

// Prepare checks the user's values against b's manifest and finds the
// world and the policy to replay under. A value the manifest does not
// accept is a *teach.InputError naming the input; a skill whose world
// cannot be found is a *teach.InputError of field world; a policy other
// than the default is a *PolicyError.
func Prepare(b *skill.Bundle, given []teach.Value, destructive bool) (*Setup, error) {
	input, err := teach.ReplayInputs(b, given)
	if err != nil {
		return nil, err
	}
	if err := checkURLs(b, input); err != nil {
		return nil, err
	}
	name, data, err := teach.WorldOf(b, "")
	if err != nil {
		return nil, err
	}
	if id := b.Manifest.DelegaticPolicyID; id != skill.DefaultPolicyID {
		return nil, &PolicyError{PolicyID: id}
	}
	return &Setup{
		Input: input, World: name, WorldData: data,
		Authorizer: replay.PolicyAuthorizer{
			Policy: policy.Default(), Declared: b.Manifest.CapabilitiesRequired,
			BodyKind: skill.BodySimulator, TrustedServer: true, DestructiveMode: destructive,
		},
		ModelBound: ModelBound(b),
	}, nil
}

// checkURLs requires every input declared as a url to be an absolute
// http or https URL: a replay would only fail later, at the navigation.
func checkURLs(b *skill.Bundle, input map[string]any) error {
	for _, in := range b.Manifest.Inputs {
		if in.Type != "url" {
			continue
		}
		v, ok := input[in.Name]
		if !ok {
			continue
		}
		s, _ := v.(string)
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &teach.InputError{Field: teach.FieldInput, Name: in.Name, Msg: fmt.Sprintf("%q is not an absolute http or https URL", s)}
		}
	}
	return nil
}

// ModelBound reports whether any recorded parameter is one a model chooses
// again on replay, so that a replay needs a model and a key.
func ModelBound(b *skill.Bundle) bool {
	for _, e := range b.Trace.Edges {
		for _, s := range e.ParamSources {
			if s == skill.SourceLLM {
				return true
			}
		}
	}
	return false
}
