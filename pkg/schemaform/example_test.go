package schemaform_test

import (
	"encoding/json"
	"fmt"

	"workbench/pkg/schemaform"
)

func Example() {
	schema := json.RawMessage(`{
	  "type": "object",
	  "properties": {
	    "skill_id": {"type": "string", "description": "Skill to replay"},
	    "edges":    {"type": "array", "items": {"type": "integer", "minimum": 0}},
	    "mode":     {"enum": ["structural", "semantic"], "default": "structural"},
	    "note":     {"anyOf": [{"type": "string"}, {"type": "null"}]}
	  },
	  "required": ["skill_id"]
	}`)
	form, err := schemaform.Compile(schema)
	if err != nil {
		panic(err)
	}

	// The page knows which skill is on screen: skill_id is prefilled,
	// and marked so the UI can say where the value came from.
	edge := 2
	for _, f := range form.Prefill(schemaform.Context{SkillID: "checkout", EdgeIndex: &edge}) {
		fmt.Printf("%s prefilled from the %s\n", f.Path, f.Inferred.Source)
	}

	// The user adds two edges and types one wrong.
	a, _ := form.AddItem("/edges")
	b, _ := form.AddItem("/edges")
	form.Set(a, "3")
	form.Set(b, "three")
	_, errs := form.Value()
	for _, e := range errs {
		fmt.Println("error:", e)
	}

	form.Set(b, "-1")
	_, errs = form.Value()
	for _, e := range errs {
		fmt.Println("error:", e.Path, e.Keyword)
	}

	form.Set(b, "4")
	form.SetNull("/note", true)
	args, errs := form.JSON()
	fmt.Println(string(args), len(errs))
	// Output:
	// /skill_id prefilled from the current skill
	// error: /edges/1: not an integer: "three"
	// error: /edges/1 minimum
	// {"edges":[3,4],"mode":"structural","note":null,"skill_id":"checkout"} 0
}
