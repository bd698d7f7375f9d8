package canonjson_test

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"

	"github.com/gowebpki/jcs"

	"workbench/pkg/canonjson"
	"workbench/pkg/canonjson/canonjsontest"
)

// benchDoc is one synthetic bundle of the seal benchmarks. The 11 MB one
// has few edges with large snapshots, the size of the bundle the project's
// throughput goal names; the others grow by edge count.
type benchDoc struct {
	name           string
	edges, snapLen int
}

var benchDocs = []benchDoc{
	{"edges=10", 10, 200},
	{"edges=1000", 1000, 200},
	{"edges=10000", 10000, 200},
	{"11MB", 1600, 5000},
}

var (
	docCacheMu sync.Mutex
	docCache   = map[string][]byte{}
)

func benchInput(b *testing.B, d benchDoc) []byte {
	docCacheMu.Lock()
	defer docCacheMu.Unlock()
	if data, ok := docCache[d.name]; ok {
		return data
	}
	data := canonjsontest.Bundle(d.edges, d.snapLen)
	docCache[d.name] = data
	return data
}

// sealCanonjson is what sealing a bundle costs with this package: strict
// parse, canonical form without content_hash and signature, SHA-256.
func sealCanonjson(data []byte, buf []byte) ([32]byte, []byte, error) {
	doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
	if err != nil {
		return [32]byte{}, buf, err
	}
	buf = doc.AppendCanonical(buf[:0], "content_hash", "signature")
	return sha256.Sum256(buf), buf, nil
}

// sealJCS is the same with the reference encoder, which has no way to leave
// members out: it canonicalizes the whole document (two short members more).
func sealJCS(data []byte) ([32]byte, error) {
	c, err := jcs.Transform(data)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(c), nil
}

func BenchmarkSeal(b *testing.B) {
	for _, d := range benchDocs {
		data := benchInput(b, d)
		b.Run(fmt.Sprintf("canonjson/%s", d.name), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				var err error
				if _, buf, err = sealCanonjson(data, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("jcs/%s", d.name), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sealJCS(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParts splits the 11 MB seal into its steps, to show where the
// time goes.
func BenchmarkParts(b *testing.B) {
	d := benchDocs[len(benchDocs)-1]
	data := benchInput(b, d)
	doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	canon := doc.Canonical()
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := canonjson.Parse(data, canonjson.DefaultLimits()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		buf := make([]byte, 0, len(canon))
		for b.Loop() {
			buf = doc.AppendCanonical(buf[:0])
		}
	})
	b.Run("encode-anew", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		buf := make([]byte, 0, len(canon))
		for b.Loop() {
			buf = doc.AppendCanonicalAnew(buf[:0])
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			sha256.Sum256(canon)
		}
	})
}
