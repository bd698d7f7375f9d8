package library_test

import (
	"context"
	"fmt"
	"os"

	"workbench/fixtures"
	"workbench/pkg/library"
	"workbench/pkg/store/mem"
	"workbench/pkg/verify"
	"workbench/schemas"
)

// Importing the same file twice stores it once.
func ExampleImport() {
	sv, _ := schemas.New()
	scenarios, _ := fixtures.Scenarios()
	v := verify.New(sv, scenarios, nil)
	st := mem.New()
	data, _ := os.ReadFile("../../fixtures/valid-skill-bundle.v0.json")

	for _, name := range []string{"first.skill.json", "again.skill.json"} {
		res, err := library.Import(context.Background(), st, v, name, data)
		if err != nil {
			fmt.Println("store failed:", err)
			return
		}
		fmt.Println(res.Name, res.Status, res.Report.Verdict)
	}
	bad, _ := library.Import(context.Background(), st, v, "broken.json", []byte(`{"bundle_version": "0.1",}`))
	fmt.Println(bad.Name, bad.Status, bad.Problems[0])
	// Output:
	// first.skill.json accepted pass
	// again.skill.json duplicate pass
	// broken.json rejected byte 25: syntax error: unexpected '}', expected a member name in double quotes
}
