// Package sortfunc sorts a slice by a comparison function, as
// slices.SortFunc and slices.SortStableFunc do, with the same results, in
// a fraction of the compiled code.
//
// slices.SortFunc is compiled once for each element type of a distinct
// shape: a slice of a struct type brings its own copy of the whole pattern-
// defeating quicksort, about nine functions and 20 kB of WebAssembly, and
// the runtime's tables add about 450 bytes for each function. Package sort
// has one non-generic copy of the same algorithms (both are generated from
// one template, so a comparison function gives the same order), reached
// through sort.Slice and sort.SliceStable; Sort and Stable are thin generic
// wrappers over it, so each element type costs two small functions. Hot
// loops keep slices.SortFunc: sort.Slice swaps through reflection and calls
// the comparison through two function values.
package sortfunc

import "sort"

// Sort sorts s in ascending order as cmp determines (negative when a < b,
// zero when equal, positive when a > b), as slices.SortFunc does: not
// stable, and the same order as slices.SortFunc for the same cmp.
func Sort[S ~[]E, E any](s S, cmp func(a, b E) int) {
	sort.Slice(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}

// Stable sorts s as cmp determines, keeping the original order of equal
// elements, as slices.SortStableFunc does.
func Stable[S ~[]E, E any](s S, cmp func(a, b E) int) {
	sort.SliceStable(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}
