package capability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// CheckInput validates input (a JSON object) against the capability's
// input schema. It returns nil, an *InputError listing each problem with
// its JSON pointer, or an error saying the schema itself cannot be used
// (then the input is not judged here; the source judges it on invoke).
func CheckInput(c Capability, input json.RawMessage) error {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return &InputError{ID: c.ID, Problems: []string{"(root): not JSON: " + err.Error()}}
	}
	if _, ok := inst.(map[string]any); !ok {
		return &InputError{ID: c.ID, Problems: []string{"(root): must be an object"}}
	}
	if len(c.InputSchema) == 0 {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.InputSchema))
	if err != nil {
		return fmt.Errorf("capability %s: input schema is not JSON: %w", c.ID, err)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	const url = "urn:workbench:capability-input"
	if err := comp.AddResource(url, doc); err != nil {
		return fmt.Errorf("capability %s: input schema: %w", c.ID, err)
	}
	sch, err := comp.Compile(url)
	if err != nil {
		return fmt.Errorf("capability %s: input schema does not compile: %w", c.ID, err)
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fmt.Errorf("capability %s: %w", c.ID, err)
	}
	p := message.NewPrinter(language.English)
	var problems []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		problems = append(problems, pointer(e.InstanceLocation)+": "+e.ErrorKind.LocalizedString(p))
	}
	walk(ve)
	sort.Strings(problems)
	return &InputError{ID: c.ID, Problems: problems}
}

// pointer makes an RFC 6901 JSON pointer of a location; the root is "/".
func pointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range loc {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}
