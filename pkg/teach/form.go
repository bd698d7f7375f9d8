package teach

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"workbench/fixtures"
	"workbench/pkg/redact"
	"workbench/pkg/schemaform"
	"workbench/pkg/skill"
	"workbench/schemas"
)

// Field is one input a form asks for before a demonstration: the input's
// name, its declared type and the text the field starts with.
type Field struct {
	Name string
	Type string
	Raw  string
}

// ScenarioFields lists the inputs fixture scenario id declares, in its
// order, each starting with its example value as the text a user would
// type for it (FromScenario parses that text back to the same value).
func ScenarioFields(id string) ([]Field, error) {
	sc, err := fixtures.ScenarioByID(id)
	if err != nil {
		return nil, inputErrorf(FieldScenario, id, "no such scenario (scenarios: %s)", strings.Join(ScenarioIDs(), ", "))
	}
	out := make([]Field, len(sc.Inputs))
	for i, in := range sc.Inputs {
		out[i] = Field{Name: in.Name, Type: in.Type, Raw: ExampleText(in.Example)}
	}
	return out, nil
}

// ExampleText writes an input value as a user types it: a string as it
// is, anything else as JSON. It is the schema form's text of a value, so
// an example prefilled here reads the same as a value the form shows.
func ExampleText(v any) string { return schemaform.FieldText(v) }

// DraftProblems are the reasons a draft manifest does not satisfy the
// manifest schema, keyed by the top-level member each concerns ("name",
// "slug", "description", …; "" for the manifest as a whole), so a form
// shows each beside its field. A nil or empty DraftProblems means the
// draft is valid.
type DraftProblems map[string][]string

// Valid reports whether there are no problems.
func (d DraftProblems) Valid() bool { return len(d) == 0 }

// CheckDraft validates m against the manifest schema, as the draft stands
// after the user's edits, and refuses a name or slug holding what looks
// like a secret, an e-mail address or a password: they become the file
// name and travel in every export, so they never carry one. The error is
// not nil only when m could not be checked at all.
func CheckDraft(v *schemas.Validator, m skill.Manifest) (DraftProblems, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("teach: encoding the draft manifest: %w", err)
	}
	out := DraftProblems{}
	err = v.ValidateJSON(schemas.Manifest, data)
	if err != nil {
		ve, ok := err.(*schemas.ValidationError)
		if !ok {
			return nil, fmt.Errorf("teach: checking the draft manifest: %w", err)
		}
		for _, f := range ve.Errors {
			member, rest, _ := strings.Cut(strings.TrimPrefix(f.Pointer, "/"), "/")
			msg := f.Message
			if rest != "" {
				msg = f.Pointer + ": " + msg
			}
			out[member] = append(out[member], msg)
		}
	}
	// The schema accepts any slug of spec §4, as another producer may
	// write it; a slug the workbench writes is held to skill.ValidSlug.
	if len(out["slug"]) == 0 && skill.ValidSlug(m.Slug) != nil {
		out["slug"] = append(out["slug"], fmt.Sprintf(
			"must be kebab-case, 2 to %d characters: lowercase letters and digits joined by single hyphens (pattern %s)",
			skill.MaxSlugLen, skill.SlugPattern))
	}
	d := redact.NewDetector()
	for _, f := range []struct{ member, text string }{{"name", m.Name}, {"slug", m.Slug}} {
		if kinds := sensitive(d, f.text); len(kinds) > 0 {
			out[f.member] = append(out[f.member], "holds what looks like a "+strings.Join(kinds, ", ")+
				": it becomes the file name and travels with every export, so remove it")
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// sensitive lists, sorted and once each, the kinds of secret and personal
// pattern d finds in s.
func sensitive(d *redact.Detector, s string) []string {
	var kinds []string
	for _, m := range append(d.ScanString(s), d.ScanPII(s)...) {
		if !slices.Contains(kinds, m.Kind) {
			kinds = append(kinds, m.Kind)
		}
	}
	slices.Sort(kinds)
	return kinds
}
