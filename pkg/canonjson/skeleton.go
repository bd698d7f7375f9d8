package canonjson

import (
	"bytes"
	"slices"
)

// AppendSkeleton appends the canonical JSON of the document's skeleton: the
// same objects with every scalar replaced by its JSON type name ("string",
// "number", "boolean", "null") and every array by the set of its distinct
// element skeletons, ordered by their canonical bytes. Two documents with
// the same layout and other values have the same skeleton; the workbench
// hashes it into a state's shape signature (DESIGN §3).
func (d *Document) AppendSkeleton(dst []byte) []byte {
	return d.appendSkeleton(dst, 0)
}

func (d *Document) appendSkeleton(dst []byte, i int32) []byte {
	switch d.kind(i) {
	case kObject:
		dst = append(dst, '{')
		first := d.first(i)
		for k := first; k >= 0; k = d.next(i, k) {
			if k != first {
				dst = append(dst, ',')
			}
			dst = d.appendName(dst, k)
			dst = d.appendSkeleton(dst, k+1)
		}
		return append(dst, '}')
	case kArray:
		var elems [][]byte
		seen := map[string]bool{}
		for e := d.first(i); e >= 0; e = d.next(i, e) {
			s := d.appendSkeleton(nil, e)
			if !seen[string(s)] {
				seen[string(s)] = true
				elems = append(elems, s)
			}
		}
		slices.SortFunc(elems, bytes.Compare)
		dst = append(dst, '[')
		for j, s := range elems {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, s...)
		}
		return append(dst, ']')
	case kString:
		return append(dst, `"string"`...)
	case kNumber:
		return append(dst, `"number"`...)
	case kTrue, kFalse:
		return append(dst, `"boolean"`...)
	}
	return append(dst, `"null"`...)
}
