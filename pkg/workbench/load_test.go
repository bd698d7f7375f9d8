package workbench_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/signature"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// TestLoad: a stored version is read, verified and its signer checked
// against the trusted signers given; a version or a skill the library
// does not have is said as such.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	v := verifier(t)
	valid, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fixtures.ValidBundleFile))
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	signer := signature.KeySigner{Key: key}
	signed, err := signature.Sign(ctx, signer, valid)
	if err != nil {
		t.Fatal(err)
	}
	pinsJSON, err := json.Marshal(map[string]any{"signers": []signature.Pin{signature.NewPin("the publisher", signer.Public())}})
	if err != nil {
		t.Fatal(err)
	}
	pins, err := signature.ParsePins(pinsJSON)
	if err != nil {
		t.Fatal(err)
	}
	st := mem.New()
	res, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(st)}).Import(ctx, "signed", signed)
	if err != nil || res.Skill.ID == "" {
		t.Fatalf("import: %+v, %v", res, err)
	}
	id := res.Skill.ID
	withPins := func(ps *signature.PinSet) *workbench.Flows {
		return workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(st),
			Pins: func(context.Context) (*signature.PinSet, error) { return ps, nil }})
	}
	for _, tc := range []struct {
		name      string
		flows     *workbench.Flows
		id        string
		version   int
		signature string // the report's, when loaded
		err       error
	}{
		{"the newest, its signer trusted", withPins(pins), id, 0, verify.SignatureTrusted, nil},
		{"a version by number", withPins(pins), id, res.Skill.Version, verify.SignatureTrusted, nil},
		{"a signer not in the trusted signers", withPins(&signature.PinSet{}), id, 0, verify.SignatureUnknownKey, nil},
		{"no pin provider", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(st)}), id, 0, verify.SignatureUnverified, nil},
		{"a version the skill does not have", withPins(pins), id, 99, "", workbench.ErrNoVersion},
		{"a skill the library does not have", withPins(pins), "00000000-0000-4000-8000-000000000000", 0, "", store.ErrNotFound},
		{"no library", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), id, 0, "", workbench.ErrNoLibrary},
		{"no verifier", workbench.New(workbench.Deps{Store: workbench.UseStore(st)}), id, 0, "", workbench.ErrNoVerifier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := tc.flows.Load(ctx, tc.id, tc.version)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Load = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Bundle == nil || l.Stored.ContentHash != l.Report.ContentHash || l.Skill.ID != tc.id || len(l.Versions) == 0 {
				t.Errorf("loaded %+v", l)
			}
			if l.Report.Signature != tc.signature {
				t.Errorf("signature %q, want %q", l.Report.Signature, tc.signature)
			}
		})
	}
}
