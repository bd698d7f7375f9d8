package verify_test

import (
	"fmt"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// bigBundle grows the reference bundle to n edges (and a matching replay
// record), re-proves and encodes it.
func bigBundle(b *testing.B, v *verify.Verifier, n int) []byte {
	b.Helper()
	_, files := setup(b)
	bundle, _, err := skill.Decode(files[fixtures.ValidBundleFile])
	if err != nil {
		b.Fatal(err)
	}
	rec, put := replayRecord(b, bundle)
	orig, origRec := bundle.Trace.Edges, rec.Edges
	bundle.Trace.Edges, rec.Edges = nil, nil
	for i := range n {
		e := orig[i%len(orig)]
		e.Index, e.EdgeID = i, fmt.Sprintf("%s-%d", e.EdgeID[:8], i)
		e.Provenance.Timestamp = bundle.Trace.StartedAt
		bundle.Trace.Edges = append(bundle.Trace.Edges, e)
		re := origRec[i%len(origRec)]
		re.Index, re.EdgeID = i, e.EdgeID
		rec.Edges = append(rec.Edges, re)
	}
	rec.Report.EdgesAttempted, rec.Report.EdgesCommitted = n, n
	put()
	if err := v.SealWithProof(bundle); err != nil {
		b.Fatal(err)
	}
	data, err := bundle.Encode()
	if err != nil {
		b.Fatal(err)
	}
	r, err := v.Bytes(data)
	if err != nil {
		b.Fatal(err)
	}
	if r.Verdict != skill.VerdictPass {
		b.Fatalf("synthetic %d-edge bundle does not pass: %v %+v", n, r.Overclaims, r.Derived.ProofGates)
	}
	return data
}

// benchSizes runs op on reference-shaped bundles of 10, 1,000 and 10,000
// edges, reporting throughput and allocations.
func benchSizes(b *testing.B, op func(b *testing.B, v *verify.Verifier, data []byte)) {
	v, _ := setup(b)
	for _, n := range []int{10, 1000, 10000} {
		data := bigBundle(b, v, n)
		b.Run(fmt.Sprintf("edges=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				op(b, v, data)
			}
		})
	}
}

// BenchmarkVerify is full verification of bundle bytes: strict decode,
// schema validation, typed decode, both hash recomputations and every gate.
func BenchmarkVerify(b *testing.B) {
	benchSizes(b, func(b *testing.B, v *verify.Verifier, data []byte) {
		if _, err := v.Bytes(data); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkProve is verification without the schema: strict decode, typed
// decode, both hash recomputations and every gate.
func BenchmarkProve(b *testing.B) {
	benchSizes(b, func(b *testing.B, v *verify.Verifier, data []byte) {
		bundle, doc, err := skill.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		v.ProveDocument(bundle, doc)
	})
}

// BenchmarkSeal is sealing bundle bytes: strict parse, canonicalize without
// content_hash and signature, SHA-256.
func BenchmarkSeal(b *testing.B) {
	benchSizes(b, func(b *testing.B, v *verify.Verifier, data []byte) {
		doc, err := skill.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := skill.DocumentHash(doc); err != nil {
			b.Fatal(err)
		}
	})
}
