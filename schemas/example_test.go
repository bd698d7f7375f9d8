package schemas_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"workbench/schemas"
)

func ExampleValidator_Validate() {
	v, err := schemas.New()
	if err != nil {
		panic(err) // the embedded schemas are broken: a build defect
	}

	// A manifest as a user left it in the edit form: the slug has spaces
	// and capitals, the name was cleared.
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{
		"schema": "https://opensentience.org/spec/skill-manifest/v0.1",
		"skill_id": "01970a3c-5a4e-7b2d-9c1f-3e5d7a9b1c2d",
		"name": "",
		"slug": "My Skill",
		"description": "Opens a project page and returns its first paragraph.",
		"version": 1,
		"derived_from_trace_id": "01970a3c-5a40-7000-8000-000000000001",
		"body_choice": "simulator",
		"inputs": [], "outputs": [], "preconditions": [],
		"binding": "portable",
		"capabilities_required": ["&body.browser"],
		"created_at": "2026-05-25T12:34:56Z",
		"updated_at": "2026-05-25T12:34:56Z"
	}`))
	if err != nil {
		panic(err)
	}

	err = v.Validate(schemas.Manifest, doc)
	var ve *schemas.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Errors {
			fmt.Printf("%s [%s] %s\n", f.Pointer, f.Keyword, f.Message)
		}
	}
	// Output:
	// /name [minLength] must not be empty
	// /slug [pattern] must match pattern ^[a-z0-9-]+$
}
