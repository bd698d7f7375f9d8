package redact

import (
	"encoding/json"
	"testing"
)

// FuzzScan checks that scanning never panics, that matches are ordered,
// in range and of known kinds, and that masking is a fixed point: a masked
// string or document holds nothing left to find, which is what makes Apply
// idempotent and Check pass on Apply's output. The seed corpus is in
// testdata/fuzz/FuzzScan.
func FuzzScan(f *testing.F) {
	d := NewDetector()
	f.Fuzz(func(t *testing.T, s string) {
		ms := d.ScanString(s)
		last := 0
		for _, m := range ms {
			if m.Start < last || m.End <= m.Start || m.End > len(s) || !isKind(m.Kind) {
				t.Fatalf("bad match %+v after offset %d in a %d-byte string", m, last, len(s))
			}
			last = m.End
		}
		if rest := d.ScanString(d.MaskString(s)); len(rest) != 0 {
			t.Fatalf("the masked string still holds %+v", rest)
		}

		if !json.Valid([]byte(s)) {
			return
		}
		fs, err := d.ScanJSON([]byte(s))
		if err != nil {
			t.Fatalf("ScanJSON of valid JSON: %v", err)
		}
		for _, f := range fs {
			if f.Start < 0 || f.End <= f.Start || !isKind(f.Kind) {
				t.Fatalf("bad finding %+v", f)
			}
		}
		root, err := toTree(json.RawMessage(s))
		if err != nil {
			t.Fatal(err)
		}
		w := walker{f: finder{d: d}, mask: true}
		root = w.value(root, "")
		if rest, err := d.Scan(root); err != nil || len(rest) != 0 {
			t.Fatalf("the masked document still holds %v (%v)", rest, err)
		}
	})
}
