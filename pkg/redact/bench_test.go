package redact

import (
	"testing"

	"workbench/pkg/skill"
)

// BenchmarkScan scans a whole 1,000-edge bundle: encoding it to JSON,
// decoding the generic tree and checking every string and member name.
func BenchmarkScan(b *testing.B) {
	bundle := newBundle(b, 1000)
	b.SetBytes(int64(len(encode(b, bundle))))
	d := NewDetector()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Scan(bundle); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanString is the detector alone on a typical clean string.
func BenchmarkScanString(b *testing.B) {
	d := NewDetector()
	s := "I will open the forecast page and type the city into the search form, then press Search."
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		d.ScanString(s)
	}
}

// BenchmarkApply redacts a 1,000-edge bundle under each profile, including
// the re-seal and the re-import check.
func BenchmarkApply(b *testing.B) {
	for _, profile := range []string{skill.RedactionTranscriptPII, skill.RedactionFull} {
		b.Run(profile, func(b *testing.B) {
			orig := newBundle(b, 1000)
			d := NewDetector()
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				c := clone(b, orig)
				b.StartTimer()
				if _, err := d.Apply(c, profile); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
