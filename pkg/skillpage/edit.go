package skillpage

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"workbench/pkg/assemble"
	"workbench/pkg/skill"
	"workbench/schemas"
)

// The fields of a manifest edit, as ValidateEdit keys its errors.
const (
	FieldName        = "name"
	FieldSlug        = "slug"
	FieldDescription = "description"
)

// ValidateEdit applies e to a copy of m and validates the result against
// the manifest schema. It returns each field's error message, keyed by
// FieldName, FieldSlug or FieldDescription (an error elsewhere in the
// manifest under its JSON pointer); an empty map means the edit is valid.
// The error is for a manifest that cannot be checked at all.
func ValidateEdit(v *schemas.Validator, m skill.Manifest, e assemble.Edit) (map[string]string, error) {
	m.Name, m.Slug, m.Description = e.Name, e.Slug, e.Description
	m.Normalize()
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("skillpage: encode the manifest: %w", err)
	}
	out := map[string]string{}
	err = v.ValidateJSON(schemas.Manifest, data)
	var ve *schemas.ValidationError
	switch {
	case err == nil:
	case errors.As(err, &ve):
		for _, fe := range ve.Errors {
			key := strings.TrimPrefix(fe.Pointer, "/")
			switch key {
			case FieldName, FieldSlug, FieldDescription:
			default:
				key = fe.Pointer
			}
			if prev, ok := out[key]; ok {
				out[key] = prev + "; " + fe.Message
			} else {
				out[key] = fe.Message
			}
		}
	default:
		return nil, fmt.Errorf("skillpage: validate the manifest: %w", err)
	}
	return out, nil
}
