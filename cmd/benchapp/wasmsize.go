package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// wasmBreakdown is where the bytes of a Go WebAssembly binary go: the
// code of each Go package (function bodies, attributed by the names in
// the binary's "name" section, so the binary must be built without -s),
// and the other sections by kind.
type wasmBreakdown struct {
	Total    int
	Code     map[string]int // function body bytes by Go package
	Sections map[string]int // bytes by section ("code", "data", "name", …)
}

var sectionNames = map[byte]string{0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory",
	6: "global", 7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount"}

// breakdownWasm reads a wasm module's sections, its function bodies and
// their names.
func breakdownWasm(data []byte) (wasmBreakdown, error) {
	w := wasmBreakdown{Total: len(data), Code: map[string]int{}, Sections: map[string]int{}}
	if len(data) < 8 || !bytes.Equal(data[:4], []byte("\x00asm")) {
		return w, errors.New("not a wasm module")
	}
	r := &reader{b: data[8:]}
	imports := 0
	var bodies []int
	names := map[int]string{}
	for r.more() {
		id := r.byte()
		size := int(r.uleb())
		sec := r.next(size)
		if r.err != nil {
			return w, r.err
		}
		name := sectionNames[id]
		s := &reader{b: sec}
		switch id {
		case 2: // imports: count the imported functions, which come first in the index space
			for n := s.uleb(); n > 0 && s.err == nil; n-- {
				s.next(int(s.uleb()))
				s.next(int(s.uleb()))
				switch kind := s.byte(); kind {
				case 0:
					s.uleb()
					imports++
				case 1:
					s.byte()
					s.limits()
				case 2:
					s.limits()
				case 3:
					s.byte()
					s.byte()
				}
			}
		case 10:
			for n := s.uleb(); n > 0 && s.err == nil; n-- {
				l := int(s.uleb())
				s.next(l)
				bodies = append(bodies, l)
			}
		case 0:
			cname := string(s.next(int(s.uleb())))
			name = "custom " + cname
			if cname == "name" {
				for s.more() && s.err == nil {
					sub := s.byte()
					sub2 := &reader{b: s.next(int(s.uleb()))}
					if sub != 1 {
						continue
					}
					for n := sub2.uleb(); n > 0 && sub2.err == nil; n-- {
						idx := int(sub2.uleb())
						names[idx] = string(sub2.next(int(sub2.uleb())))
					}
				}
			}
		}
		if s.err != nil {
			return w, fmt.Errorf("section %s: %w", name, s.err)
		}
		w.Sections[name] += size
	}
	if len(names) == 0 {
		return w, errors.New("the module has no function names (built with -s?)")
	}
	for i, l := range bodies {
		w.Code[goPackage(names[imports+i])] += l
	}
	return w, nil
}

// goPackage is the package of a function's name in the "name" section,
// where Go writes "github.com/a/b.(*T).M" as "github.com_a_b.__T_.M": the
// text before the first dot that is not the dot of a leading domain.
func goPackage(sym string) string {
	if sym == "" {
		return "(unnamed)"
	}
	start := 0
	if m := domain.FindStringIndex(sym); m != nil {
		start = m[1]
	}
	if dot := strings.Index(sym[start:], "."); dot >= 0 {
		return sym[:start+dot]
	}
	return sym
}

var domain = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|in|io|net|dev)_`)

// top returns the n largest entries of m, largest first, and the sum of
// the rest.
func top(m map[string]int, n int) ([]string, int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	rest := 0
	if len(keys) > n {
		for _, k := range keys[n:] {
			rest += m[k]
		}
		keys = keys[:n]
	}
	return keys, rest
}

// reader reads the primitive encodings of the wasm binary format.
type reader struct {
	b   []byte
	err error
}

func (r *reader) more() bool { return r.err == nil && len(r.b) > 0 }

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uleb() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) next(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.fail()
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) limits() {
	if flags := r.byte(); flags&1 != 0 {
		r.uleb()
		r.uleb()
	} else {
		r.uleb()
	}
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errors.New("truncated wasm module")
	}
}
