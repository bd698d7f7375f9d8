package workbench_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/library"
	"workbench/pkg/signature"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// fullStore is a library whose writes fail as a browser out of storage
// makes them fail.
type fullStore struct{ store.Store }

func (fullStore) AddBundle(context.Context, store.BundleFile) (store.Skill, error) {
	return store.Skill{}, &store.Error{Op: "add bundle", Kind: store.ErrQuotaExceeded}
}

// TestImport: each file gets what it is — accepted, already stored,
// rejected with its place, a collision waiting for a choice — and a
// file the flow cannot import is an error with nothing written.
func TestImport(t *testing.T) {
	v, b := setup(t)
	ctx := context.Background()
	valid, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fixtures.ValidBundleFile))
	if err != nil {
		t.Fatal(err)
	}
	full, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(ctx, b, skill.RedactionFull, false)
	if err != nil {
		t.Fatal(err)
	}
	stored := func() store.Store {
		st := mem.New()
		if _, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(st)}).Import(ctx, "first", valid); err != nil {
			t.Fatal(err)
		}
		return st
	}
	for _, tc := range []struct {
		name    string
		st      store.Store      // the library, if any
		v       *verify.Verifier // the verifier, if any
		data    []byte
		status  library.Status
		problem string // in the first problem's message, for a rejection
		err     string // the error, when the file could not be imported
	}{
		{"new file", mem.New(), v, valid, library.Accepted, "", ""},
		{"same file again", stored(), v, valid, library.Duplicate, "", ""},
		{"another profile's copy", stored(), v, full.Data, library.Collided, "", ""},
		{"not JSON", mem.New(), v, []byte("{"), library.Rejected, "", ""},
		{"a trailing member", mem.New(), v, []byte(`{"bundle_id":1}`), library.Rejected, "", ""},
		{"too large", mem.New(), v, make([]byte, library.MaxBundleBytes+1), library.Rejected, "bytes; the workbench imports bundles of at most", ""},
		{"no library", nil, v, valid, "", "", "no library is open"},
		{"no verifier", mem.New(), nil, valid, "", "", "no verifier"},
		{"store full", fullStore{mem.New()}, v, valid, "", "", "storage quota exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := workbench.Deps{Verifier: workbench.UseVerifier(tc.v)}
			if tc.st != nil {
				d.Store = workbench.UseStore(tc.st)
			}
			res, err := workbench.New(d).Import(ctx, "in.skill.json", tc.data)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Import = %+v, %v; want an error saying %q", res, err, tc.err)
				}
				if tc.st != nil {
					if sks, _ := tc.st.Skills(ctx); len(sks) != 0 {
						t.Errorf("a failed import left %d skills", len(sks))
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tc.status || res.Name != "in.skill.json" {
				t.Fatalf("status %q name %q, want %q (problems %v)", res.Status, res.Name, tc.status, res.Problems)
			}
			if tc.status == library.Rejected && (len(res.Problems) == 0 || !strings.Contains(res.Problems[0].Message, tc.problem)) {
				t.Errorf("problems %v, want one saying %q", res.Problems, tc.problem)
			}
			if tc.status == library.Collided && (res.Collision == nil || res.Collision.Suggested != library.KeepBoth) {
				t.Errorf("collision %+v: a stricter copy suggests keeping both", res.Collision)
			}
		})
	}
}

// TestImportTooLarge: a front-end learns before reading a file that it
// is too large, in the words Import would use.
func TestImportTooLarge(t *testing.T) {
	for _, tc := range []struct {
		size int
		ok   bool
	}{{0, false}, {library.MaxBundleBytes, false}, {library.MaxBundleBytes + 1, true}} {
		res, ok := workbench.ImportTooLarge("big.json", tc.size)
		if ok != tc.ok || ok && (res.Status != library.Rejected || res.Name != "big.json" || len(res.Problems) != 1) {
			t.Errorf("size %d: %+v, %v", tc.size, res, ok)
		}
	}
}

// TestResolveImport: a collision is stored as the person chose; keeping
// both makes the skill's next version at the Workbench's clock; a choice
// the flow does not know, or a missing library, writes nothing.
func TestResolveImport(t *testing.T) {
	v, b := setup(t)
	ctx := context.Background()
	valid, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	full, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(ctx, b, skill.RedactionFull, false)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		choice   library.Choice
		noStore  bool
		versions int // bundles of the skill stored after
		version  int // the skill record's version after
		err      string
	}{
		{"replace", library.Replace, false, 1, b.SkillVersion, ""},
		{"keep both", library.KeepBoth, false, 2, b.SkillVersion + 1, ""},
		{"unknown choice", "merge", false, 1, b.SkillVersion, `unknown choice "merge"`},
		{"no library", library.Replace, true, 0, 0, "no library is open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := mem.New()
			wb := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(st), Now: func() time.Time { return at }})
			if _, err := wb.Import(ctx, "first", valid); err != nil {
				t.Fatal(err)
			}
			if tc.noStore {
				wb = workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Now: func() time.Time { return at }})
			}
			res, err := wb.ResolveImport(ctx, full.Name, full.Data, tc.choice)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ResolveImport = %v; want an error saying %q", err, tc.err)
				}
			} else if err != nil || res.Status != library.Accepted {
				t.Fatalf("ResolveImport = %+v, %v", res, err)
			} else if res.Skill.Version != tc.version {
				t.Errorf("skill version %d, want %d", res.Skill.Version, tc.version)
			}
			bs, err := st.Bundles(ctx, b.SkillID)
			if err != nil {
				t.Fatal(err)
			}
			if tc.noStore {
				return
			}
			if len(bs) != tc.versions {
				t.Errorf("%d bundles stored, want %d", len(bs), tc.versions)
			}
			if tc.choice == library.KeepBoth {
				for _, sb := range bs {
					nb, err := sb.Decode()
					if err != nil {
						t.Fatal(err)
					}
					if sb.SkillVersion == tc.version && nb.CreatedAt != skill.Timestamp(at) {
						t.Errorf("version %d was made at %s, not at the flows' clock", sb.SkillVersion, nb.CreatedAt)
					}
				}
			}
		})
	}
	if _, err := (workbench.New(workbench.Deps{Store: workbench.UseStore(mem.New())})).ResolveImport(ctx, "x", valid, library.Replace); err == nil {
		t.Error("no verifier: no error")
	}
}

// wired is an Importer whose results cross JSON, as the app's import
// worker's do, and which counts its calls.
type wired struct {
	local library.Local
	calls int
}

func (w *wired) send(res library.Result, err error) (library.Result, error) {
	w.calls++
	b, merr := json.Marshal(res)
	if merr != nil {
		return library.Result{}, merr
	}
	var got library.Result
	if uerr := json.Unmarshal(b, &got); uerr != nil {
		return library.Result{}, uerr
	}
	return got, err
}

func (w *wired) Import(ctx context.Context, name string, data []byte) (library.Result, error) {
	return w.send(w.local.Import(ctx, name, data))
}

func (w *wired) Resolve(ctx context.Context, name string, data []byte, choice library.Choice) (library.Result, error) {
	return w.send(w.local.Resolve(ctx, name, data, choice))
}

// TestImportThroughImporter: with Deps.Importer the flows import through
// it, and still judge each report's signature against the person's
// trusted signers; an importer that cannot be had is the import's error.
func TestImportThroughImporter(t *testing.T) {
	v, b := setup(t)
	ctx := context.Background()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k := signature.KeySigner{Key: priv}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	signed, err := signature.Sign(ctx, k, data)
	if err != nil {
		t.Fatal(err)
	}
	full, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(ctx, b, skill.RedactionFull, false)
	if err != nil {
		t.Fatal(err)
	}
	pins := &signature.PinSet{Signers: []signature.Pin{signature.NewPin("release key", k.Public())}}
	st := mem.New()
	im := &wired{local: library.Local{Store: st, Verifier: v}}
	fl := workbench.New(workbench.Deps{
		Importer: func(context.Context) (workbench.Importer, error) { return im, nil },
		Pins:     func(context.Context) (*signature.PinSet, error) { return pins, nil },
	})
	res, err := fl.Import(ctx, "signed.skill.json", signed)
	if err != nil || res.Status != library.Accepted {
		t.Fatalf("Import = %+v, %v", res, err)
	}
	if res.Report.Signature != verify.SignatureTrusted || res.Report.Signer != "release key" {
		t.Errorf("signature %s by %q, want trusted by the pinned key", res.Report.Signature, res.Report.Signer)
	}
	res, err = fl.Import(ctx, "full.skill.json", full.Data)
	if err != nil || res.Status != library.Collided {
		t.Fatalf("Import of another profile's copy = %+v, %v", res, err)
	}
	res, err = fl.ResolveImport(ctx, "full.skill.json", full.Data, library.KeepBoth)
	if err != nil || res.Status != library.Accepted || res.Skill.Version != b.SkillVersion+1 {
		t.Fatalf("ResolveImport = %+v, %v", res, err)
	}
	if im.calls != 3 {
		t.Errorf("the importer was called %d times, want 3", im.calls)
	}
	if bs, _ := st.Bundles(ctx, b.SkillID); len(bs) != 2 {
		t.Errorf("%d bundles stored, want 2", len(bs))
	}

	broken := workbench.New(workbench.Deps{Importer: func(context.Context) (workbench.Importer, error) {
		return nil, errors.New("the import worker did not start: CompileError")
	}})
	if _, err := broken.Import(ctx, "x.json", data); err == nil || !strings.Contains(err.Error(), "import x.json: the import worker did not start") {
		t.Errorf("Import with no importer: %v", err)
	}
}
