package sortfunc_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"workbench/pkg/sortfunc"
)

// item has a key that repeats and a tag that tells equal keys apart, so a
// test sees the order a sort leaves equal elements in.
type item struct {
	key int
	tag int
}

func byKey(a, b item) int { return cmp.Compare(a.key, b.key) }

// TestSameOrderAsSlices holds Sort and Stable to the order slices.SortFunc
// and slices.SortStableFunc give, equal elements included: callers that
// moved from one to the other (a simulator's state hash, a list on screen)
// must not see a different order.
func TestSameOrderAsSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		keys int // distinct keys; few keys mean many equal elements
	}{
		{"empty", 0, 1},
		{"one", 1, 1},
		{"short, all equal", 10, 1},
		{"short, distinct", 11, 1000},
		{"insertion sort's length", 12, 3},
		{"past insertion sort", 13, 3},
		{"many equal", 500, 4},
		{"some equal", 1000, 300},
		{"distinct", 2000, 1 << 30},
		{"long, few keys", 10000, 16},
	} {
		for round := range 20 {
			in := make([]item, tc.n)
			for i := range in {
				in[i] = item{key: r.IntN(tc.keys), tag: i}
			}
			switch round {
			case 1: // ascending: pdqsort's pattern checks
				slices.SortStableFunc(in, byKey)
			case 2: // descending
				slices.SortStableFunc(in, func(a, b item) int { return byKey(b, a) })
			}
			want, got := slices.Clone(in), slices.Clone(in)
			slices.SortFunc(want, byKey)
			sortfunc.Sort(got, byKey)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, round %d: Sort gave another order than slices.SortFunc", tc.name, round)
			}
			want, got = slices.Clone(in), slices.Clone(in)
			slices.SortStableFunc(want, byKey)
			sortfunc.Stable(got, byKey)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, round %d: Stable gave another order than slices.SortStableFunc", tc.name, round)
			}
			for i := 1; i < len(got); i++ {
				if got[i-1].key == got[i].key && got[i-1].tag > got[i].tag {
					t.Fatalf("%s, round %d: Stable moved %v before %v", tc.name, round, got[i-1], got[i])
				}
			}
		}
	}
}

func ExampleStable() {
	type run struct {
		name    string
		started int
	}
	runs := []run{{"b", 2}, {"a", 1}, {"c", 2}}
	// Newest first; runs started together keep the order they came in.
	sortfunc.Stable(runs, func(a, b run) int { return cmp.Compare(b.started, a.started) })
	fmt.Println(runs)
	// Output: [{b 2} {c 2} {a 1}]
}
