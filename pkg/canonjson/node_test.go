package canonjson_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"workbench/pkg/canonjson"
	"workbench/pkg/canonjson/canonjsontest"
)

// numberDocuments hold numbers whose text no double holds exactly or
// whose canonical form is an integer beyond 2^53: what a JavaScript
// producer writes and a strict reader once refused.
var numberDocuments = []string{
	`1234567890123456800`,
	`[9007199254740993,-9007199254740993,18446744073709551616,1e20,-9.99e20,9007199254740994.0]`,
	`{"n":0.12345678901234567891,"m":1e-400,"l":123456789012345678901234567890}`,
	`{"spans":[{"start_unix_nano":1780000000123456789,"end_unix_nano":1780000000987654321}]}`,
	`[1.00000000000000000001,99999999999999999999,4.35e-7,0.1e1,100e-2,1e21]`,
}

// TestAgreesWithJavaScriptCanonicalize runs the canonicalize package, an
// independent RFC 8785 implementation in JavaScript, under Node on the
// numbers above and on random documents, and requires the same canonical
// bytes, and so the same SHA-256, as canonjson. It needs node and the
// module root's node_modules (`make node_modules`).
func TestAgreesWithJavaScriptCanonicalize(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	lib, err := filepath.Abs(filepath.Join("..", "..", "node_modules", "canonicalize", "lib", "canonicalize.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("canonicalize is not installed (make node_modules): %v", err)
	}
	docs := append([]string(nil), numberDocuments...)
	r := rand.New(rand.NewPCG(8785, 17))
	for len(docs) < 200 {
		d := canonjsontest.Random(r, 5)
		if _, err := canonjson.Parse(d, canonjson.DefaultLimits()); err == nil {
			docs = append(docs, string(d))
		}
	}
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	// The script reads the documents as one JSON array of strings, parses
	// each with JSON.parse (every number becomes the nearest double) and
	// writes canonicalize's output for each.
	const script = `
import { readFileSync } from "node:fs";
const { default: canonicalize } = await import(process.argv[1]);
const docs = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(docs.map((d) => canonicalize(JSON.parse(d)))));
`
	cmd := exec.CommandContext(t.Context(), node, "--input-type=module", "-e", script, "file://"+filepath.ToSlash(lib))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var js []string
	if err := json.Unmarshal(out, &js); err != nil || len(js) != len(docs) {
		t.Fatalf("node wrote %d results for %d documents: %v", len(js), len(docs), err)
	}
	for i, d := range docs {
		got, err := canonjson.Transform([]byte(d))
		if err != nil {
			t.Errorf("canonjson refuses %.200s: %v", d, err)
			continue
		}
		if sha256.Sum256(got) != sha256.Sum256([]byte(js[i])) {
			t.Errorf("document %d hashes differently\n in:  %.300s\n Go:  %.300s\n JS:  %.300s", i, d, got, js[i])
		}
	}
}
