package verify_test

import (
	"bytes"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"workbench/pkg/verify"
	"workbench/schemas"
)

// A hostileShape makes a document of about size bytes shaped to make a
// verifier do the most work per byte, or to report the most problems.
type hostileShape struct {
	name string
	make func(size int) []byte
}

// hostileSize is the size the cost goal is set for: any input up to
// 20 MB.
const hostileSize = 20_000_000

var hostileShapes = []hostileShape{
	// Two million members the bundle does not allow, at the top.
	{"members", func(n int) []byte { return members("", "", n) }},
	// The same in a closed object one level down.
	{"members-nested", func(n int) []byte { return members(`{"manifest":`, `}`, n) }},
	// The same in a trace edge.
	{"members-edge", func(n int) []byte { return members(`{"interaction_trace":{"edges":[`, `]}}`, n) }},
	// A long array of the wrong type at the top.
	{"array-top", func(n int) []byte { return repeat("[0", ",0", "]", n) }},
	// Millions of trace edges, each a number.
	{"edges-numbers", func(n int) []byte { return repeat(`{"interaction_trace":{"edges":[0`, ",0", "]}}", n) }},
	// Millions of empty trace edges, each missing every member.
	{"edges-empty", func(n int) []byte { return repeat(`{"interaction_trace":{"edges":[{}`, ",{}", "]}}", n) }},
	// Millions of proof gates, none of which the proof requires.
	{"gates", func(n int) []byte { return repeat(`{"proof":{"proof_gates":[0`, ",0", "]}}", n) }},
	// Nesting deeper than allowed, all the way.
	{"deep", func(n int) []byte { return bytes.Repeat([]byte("["), n) }},
	// Many trace edges nested just within the depth limit.
	{"deep-many", func(n int) []byte {
		return repeat(`{"interaction_trace":{"edges":[0`, ","+strings.Repeat("[", 120)+strings.Repeat("]", 120), "]}}", n)
	}},
	// One long string where a UUID belongs.
	{"string", func(n int) []byte { return repeat(`{"bundle_id":"`, "a", `"}`, n) }},
	// One long string of escapes.
	{"escapes", func(n int) []byte { return repeat(`{"bundle_id":"`, `\u00e9\n`, `"}`, n) }},
	// One member with a long name.
	{"name", func(n int) []byte { return repeat(`{"`, "a", `":0}`, n) }},
	// Many members whose names need escaping in a JSON pointer.
	{"names-escaped", func(n int) []byte { return members(`{"evidence":`, `}`, n, "~/") }},
	// Millions of empty objects, a node every three bytes: at the top,
	// in a member the bundle does not allow, in a trace edge.
	{"empty-objects", func(n int) []byte { return repeat(`[{}`, ",{}", "]", n) }},
	{"empty-objects-member", func(n int) []byte { return repeat(`{"a":[{}`, ",{}", "]}", n) }},
	{"empty-objects-edge", func(n int) []byte {
		return repeat(`{"interaction_trace":{"edges":[{"a":[{}`, ",{}", "]}]}}", n)
	}},
}

// repeat is prefix, then unit as many times as fits in n bytes, then
// suffix.
func repeat(prefix, unit, suffix string, n int) []byte {
	var b bytes.Buffer
	b.Grow(n)
	b.WriteString(prefix)
	for b.Len()+len(unit)+len(suffix) <= n {
		b.WriteString(unit)
	}
	b.WriteString(suffix)
	return b.Bytes()
}

// members is prefix, an object of as many distinct members as fit in n
// bytes, each name starting with namePrefix, then suffix.
func members(prefix, suffix string, n int, namePrefix ...string) []byte {
	np := strings.Join(namePrefix, "")
	var b bytes.Buffer
	b.Grow(n)
	b.WriteString(prefix)
	b.WriteByte('{')
	var name []byte
	for i := 0; ; i++ {
		name = strconv.AppendInt(append(name[:0], np...), int64(i), 36)
		if b.Len()+len(name)+7+len(suffix) > n {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.Write(name)
		b.WriteString(`":0`)
	}
	b.WriteByte('}')
	b.WriteString(suffix)
	return b.Bytes()
}

// TestHostileShapesRejected: every hostile shape, at a size with more
// problems than are listed, is rejected with at most
// schemas.MaxFieldErrors problems, each with its place and printed in a
// bounded line, and the count of the rest.
func TestHostileShapesRejected(t *testing.T) {
	v, _ := setup(t)
	for _, s := range hostileShapes {
		t.Run(s.name, func(t *testing.T) {
			data := s.make(200_000)
			_, err := v.Bytes(data)
			var ie *verify.InvalidError
			if !errors.As(err, &ie) || len(ie.Problems) == 0 {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			if len(ie.Problems) > schemas.MaxFieldErrors {
				t.Errorf("%d problems listed, want at most %d", len(ie.Problems), schemas.MaxFieldErrors)
			}
			if ie.Omitted > 0 && len(ie.Problems) != schemas.MaxFieldErrors {
				t.Errorf("%d problems listed and %d omitted", len(ie.Problems), ie.Omitted)
			}
			for _, p := range ie.Problems {
				if p.Pointer == "" && p.Offset < 0 {
					t.Errorf("problem without a place: %s", p)
				}
				// A line never grows with the input's longest string.
				if n := len(p.String()); n > 2048 {
					t.Errorf("a problem prints as %d bytes: %.120s…", n, p)
				}
			}
		})
	}
}

// TestHostileProblemsCounted: the problems beyond the listed ones are
// counted, every one of them.
func TestHostileProblemsCounted(t *testing.T) {
	v, _ := setup(t)
	var obj strings.Builder
	obj.WriteString(`{"m0":0`)
	for i := 1; i < 1000; i++ {
		obj.WriteString(`,"m` + strconv.Itoa(i) + `":0`)
	}
	obj.WriteString(`}`)
	for _, tc := range []struct {
		data []byte
		want int
	}{
		// The 11 members a bundle requires, and 1,000 it does not allow.
		{[]byte(obj.String()), 11 + 1000},
		// The 10 other members a bundle requires, the 9 others a trace
		// does, and 5,000 edges of the wrong type.
		{[]byte(`{"interaction_trace":{"edges":[0` + strings.Repeat(",0", 4999) + `]}}`), 10 + 9 + 5000},
	} {
		_, err := v.Bytes(tc.data)
		var ie *verify.InvalidError
		if !errors.As(err, &ie) {
			t.Fatalf("got %v, want an *InvalidError", err)
		}
		if ie.Total() != tc.want || len(ie.Problems) != schemas.MaxFieldErrors {
			t.Errorf("%.40s…: %d problems listed, %d in all, want %d listed and %d in all",
				tc.data, len(ie.Problems), ie.Total(), schemas.MaxFieldErrors, tc.want)
		}
	}
}

// BenchmarkVerifyHostile verifies each hostile shape at 20 MB, reporting
// the CPU time and the peak resident memory of one verification where
// the platform tells them (peak-RSS-MB includes the input and the
// verifier, which are resident before it starts).
func BenchmarkVerifyHostile(b *testing.B) {
	v, _ := setup(b)
	for _, s := range hostileShapes {
		b.Run(s.name, func(b *testing.B) {
			data := s.make(hostileSize)
			b.SetBytes(int64(len(data)))
			var cpu, peak float64
			for b.Loop() {
				var err error
				c, p, ok := measure(func() { _, err = v.Bytes(data) })
				var ie *verify.InvalidError
				if !errors.As(err, &ie) || len(ie.Problems) > schemas.MaxFieldErrors {
					b.Fatalf("got %v, want an *InvalidError listing at most %d problems", err, schemas.MaxFieldErrors)
				}
				if ok {
					cpu, peak = cpu+c, max(peak, p)
				}
			}
			if peak > 0 {
				b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
				b.ReportMetric(peak, "peak-RSS-MB")
			}
		})
	}
}

// maxAllocPerByte bounds what verifying an input the verifier rejects
// allocates, per byte of the input: the parse's 13 bytes a node, at most
// one node per two bytes, and the copy of the source that reading many of
// its strings makes (docs/perf/verify.md, "Memory").
const maxAllocPerByte = 8

// TestHostileMemoryInProportion: for every hostile shape, what verifying
// it allocates stays within maxAllocPerByte times its size. Allocation is
// counted, not resident memory, so the figure does not depend on when
// the collector runs; the peak resident memory is at most the input plus
// this (BenchmarkVerifyHostile measures it).
func TestHostileMemoryInProportion(t *testing.T) {
	v, _ := setup(t)
	for _, s := range hostileShapes {
		t.Run(s.name, func(t *testing.T) {
			data := s.make(2_000_000)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := v.Bytes(data)
			runtime.ReadMemStats(&after)
			var ie *verify.InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(data))
			if per > maxAllocPerByte {
				t.Errorf("allocated %.2f bytes per byte of input, want at most %d", per, maxAllocPerByte)
			} else {
				t.Logf("allocated %.2f bytes per byte of input", per)
			}
		})
	}
}
