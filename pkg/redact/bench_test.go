package redact

import (
	"strings"
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

// BenchmarkKnownFind looks for runs of the seeded secrets in 4 MB of
// ordinary text, the size of a large exported bundle: the cost per byte
// the gate pays for the fragment rule.
func BenchmarkKnownFind(b *testing.B) {
	d := NewDetector()
	k, err := d.Known(seeded)
	if err != nil {
		b.Fatal(err)
	}
	line := "I will open the forecast page and type the city into the search form, then press Search. sha256:9f86d081884c7d65\n"
	s := strings.Repeat(line, 4<<20/len(line))
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if ms := k.Find(s); len(ms) != 0 {
			b.Fatalf("found %v", ms[0])
		}
	}
}

// BenchmarkCheckKnown is gate.redaction_verify's redaction check of a
// redacted 1,000-edge bundle against the secrets of the original.
func BenchmarkCheckKnown(b *testing.B) {
	orig := newBundle(b, 1000)
	d := NewDetector()
	k, err := d.Known(orig)
	if err != nil {
		b.Fatal(err)
	}
	red := clone(b, orig)
	if _, err := d.Apply(red, skill.RedactionTranscriptPII); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(encode(b, red))))
	b.ReportAllocs()
	for b.Loop() {
		if ps := d.CheckKnown(red, k); len(ps) != 0 {
			b.Fatal(ps[0])
		}
	}
}
