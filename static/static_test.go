package static_test

import (
	"os"
	"testing"

	"workbench/pkg/canonjson"
	"workbench/static"
)

// Each file parses strictly (I-JSON: no comments, no duplicate names) as an
// object, and the embedded bytes are the file's.
func TestFilesAreStrictJSON(t *testing.T) {
	for name, embedded := range map[string][]byte{
		static.PulseManifestFile: static.PulseManifest(),
		static.AmpersandFile:     static.Ampersand(),
	} {
		doc, err := canonjson.Parse(embedded, canonjson.DefaultLimits())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !doc.IsObject() {
			t.Errorf("%s: not a JSON object", name)
		}
		onDisk, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if string(onDisk) != string(embedded) {
			t.Errorf("%s: embedded bytes differ from the file", name)
		}
	}
}

// The package hands out copies: a caller cannot change what others read.
func TestCopies(t *testing.T) {
	a := static.PulseManifest()
	a[0] = 'x'
	if static.PulseManifest()[0] != '{' {
		t.Error("PulseManifest returned shared bytes")
	}
}
