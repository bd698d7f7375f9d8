package canonjson_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"workbench/pkg/canonjson"
	"workbench/pkg/canonjson/canonjsontest"
)

// strictKinds are the rejections of input that is JSON but not I-JSON, or
// beyond Limits: the only ways canonjson may refuse what the reference
// accepts.
var strictKinds = map[canonjson.Kind]bool{
	canonjson.KindDuplicateKey:  true,
	canonjson.KindInvalidUTF8:   true,
	canonjson.KindLoneSurrogate: true,
	canonjson.KindNonFinite:     true,
	canonjson.KindTooDeep:       true,
	canonjson.KindTooLarge:      true,
}

// checkAgainstReference holds canonjson to gowebpki/jcs on one input: when
// both accept, the bytes are equal; when only the reference accepts, the
// rejection is a strict I-JSON one. It reports whether both accepted.
func checkAgainstReference(t testing.TB, name string, in []byte) bool {
	t.Helper()
	want, refErr := jcs.Transform(in)
	got, err := canonjson.Transform(in)
	switch {
	case err == nil && refErr == nil:
		if !bytes.Equal(got, want) {
			t.Errorf("%s: output differs from gowebpki/jcs\ninput %.200q\ngot   %.200q\nwant  %.200q\nfirst difference at byte %d",
				name, in, got, want, firstDiff(got, want))
		}
		doc, err := canonjson.Parse(in, canonjson.DefaultLimits())
		if err != nil {
			t.Fatalf("%s: Transform accepted what Parse rejects: %v", name, err)
		}
		if anew := doc.AppendCanonicalAnew(nil); !bytes.Equal(anew, want) {
			t.Errorf("%s: AppendCanonicalAnew differs from gowebpki/jcs\ninput %.200q\ngot   %.200q\nwant  %.200q\nfirst difference at byte %d",
				name, in, anew, want, firstDiff(anew, want))
		}
		return true
	case err != nil && refErr == nil:
		if !strictKinds[kindOf(err)] {
			t.Errorf("%s: gowebpki/jcs accepts what canonjson calls %v\ninput %.200q", name, err, in)
		}
	case err == nil && refErr != nil:
		t.Errorf("%s: canonjson accepts what gowebpki/jcs rejects (%v)\ninput %.200q", name, refErr, in)
	}
	return false
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// rfcDocuments are the RFC 8785 inputs of rfc8785_test.go as documents.
func rfcDocuments() map[string][]byte {
	docs := map[string][]byte{
		"main example": []byte(`{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`),
		"sorting example": []byte(`{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`),
	}
	var escapes strings.Builder
	escapes.WriteString(`["\/", "/", "\u2028", "\u007f", "\u0022\u005c"`)
	for c := range 0x20 {
		fmt.Fprintf(&escapes, `, "\u%04x", "\u%04X"`, c, c)
	}
	escapes.WriteString(`, "\b\t\n\f\r"]`)
	docs["escapes"] = []byte(escapes.String())
	for _, tc := range appendixB {
		f := math.Float64frombits(tc.bits)
		docs["appendix B "+tc.want] = []byte("[" + tc.want + "," + strconvE(f) + "]")
	}
	return docs
}

func TestReferenceRFC(t *testing.T) {
	for name, doc := range rfcDocuments() {
		checkAgainstReference(t, name, doc)
	}
}

// TestReferenceGenerated compares the two encoders on random documents
// (deep nesting, Unicode from every plane, every escape form, numbers over
// the whole double range) and on bundle-shaped ones.
func TestReferenceGenerated(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(8785, 7493))
	both := 0
	for i := range n {
		doc := canonjsontest.Random(r, 1+i%12)
		if checkAgainstReference(t, fmt.Sprintf("random document %d", i), doc) {
			both++
		}
	}
	// The generator writes I-JSON, so nearly every document should have
	// been compared, not rejected; a shortfall means the test lost its teeth.
	t.Logf("%d of %d generated documents accepted by both", both, n)
	if both < n*9/10 {
		t.Errorf("only %d of %d generated documents were accepted by both", both, n)
	}
	for _, edges := range []int{0, 1, 10, 300} {
		doc := canonjsontest.Bundle(edges, 300)
		if !checkAgainstReference(t, fmt.Sprintf("bundle with %d edges", edges), doc) {
			t.Errorf("bundle with %d edges was rejected", edges)
		}
	}
}

// TestReferenceRepositoryFiles compares the two encoders on every JSON
// file in the repository's fixtures/ and schemas/ directories.
func TestReferenceRepositoryFiles(t *testing.T) {
	root := repoRoot(t)
	files := 0
	for _, dir := range []string{"fixtures", "schemas"} {
		top := filepath.Join(root, dir)
		if _, err := os.Stat(top); os.IsNotExist(err) {
			t.Logf("%s/ does not exist", dir)
			continue
		}
		err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".json") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			files++
			if !checkAgainstReference(t, rel, data) {
				// Fixtures are importable bundles and scenarios, schemas
				// are read by the same parser: all must be I-JSON.
				_, err := canonjson.Transform(data)
				t.Errorf("%s: not compared, rejected: %v", rel, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("compared %d JSON files under fixtures/ and schemas/", files)
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// TestSealMatchesReference checks the benchmarks compare equal work: the
// canonical form without content_hash and signature is the reference's
// canonical form of the bundle with those members removed.
func TestSealMatchesReference(t *testing.T) {
	data := canonjsontest.Bundle(20, 500)
	_, got, err := sealCanonjson(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`,"content_hash"`))
	if i < 0 {
		t.Fatal("bundle has no content_hash")
	}
	trimmed := append(append([]byte(nil), data[:i]...), '}')
	want, err := jcs.Transform(trimmed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("sealed bytes differ from the reference at byte %d", firstDiff(got, want))
	}
}

// AppendNumber writes integers as the reference does, at and around every
// power of two and of ten up to 2^53 and beyond it (where its integer
// shortcut stops), and at random.
func TestAppendNumberIntegersMatchReference(t *testing.T) {
	var xs []float64
	for e := 0; e <= 70; e++ {
		p := math.Ldexp(1, e)
		xs = append(xs, p-1, p, p+1, p+2)
	}
	for p := 1.0; p <= 1e22; p *= 10 {
		xs = append(xs, p-1, p, p+1, p+0.5, p*1.5)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		xs = append(xs, float64(r.Int64N(1<<53)), float64(r.IntN(100000)), float64(r.Int64()))
	}
	for _, x := range xs {
		for _, f := range []float64{x, -x} {
			want, err := jcs.NumberToJSON(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(canonjson.AppendNumber(nil, f)); got != want {
				t.Errorf("AppendNumber(%v) = %s, reference %s", f, got, want)
			}
		}
	}
}
