package verify_test

import (
	"errors"
	"fmt"
	"os"

	"workbench/pkg/verify"
)

// The workbench's verifier judges a bundle file by its evidence: the
// verdict is re-derived, not read from the bundle's claim.
func ExampleStandard() {
	v, err := verify.Standard()
	if err != nil {
		panic(err)
	}
	data, err := os.ReadFile("../../fixtures/valid-skill-bundle.v0.json")
	if err != nil {
		panic(err)
	}
	r, err := v.Bytes(data)
	if err != nil {
		panic(err)
	}
	fmt.Println("version", r.Version)
	fmt.Println("claimed:", r.Claimed.OverallVerdict, "re-verified:", r.Derived.OverallVerdict, "standing:", r.Verdict)

	// Bytes that are not a bundle: the error says where.
	_, err = v.Bytes([]byte(`{"bundle_version": 1}`))
	var invalid *verify.InvalidError
	if errors.As(err, &invalid) {
		fmt.Println("not a bundle:", invalid.Problems[0].Pointer, invalid.Problems[0].Message)
	}
	// Output:
	// version 2
	// claimed: pass re-verified: pass standing: pass
	// not a bundle: /bundle_id is required
}
