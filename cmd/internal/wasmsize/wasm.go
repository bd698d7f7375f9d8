// Package wasmsize says where the bytes of a Go WebAssembly module go:
// the code of each Go package, from the function names in the module's
// "name" section, and its data, from the symbols the linker kept (its
// -dumpdep graph) and their sizes in the compiled packages.
package wasmsize

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Module is where the bytes of a Go WebAssembly binary go: the code of
// each function (bodies, named by the binary's "name" section, so the
// binary must be built without -s) and the sections by kind.
type Module struct {
	Total    int
	Code     map[string]int // function body bytes by function name
	Sections map[string]int // bytes by section ("code", "data", "custom name", …)
	// PCLn is the runtime's function table in the data section, when
	// the module has one.
	PCLn *PCLnTab
}

// PCLnTab is the size of the parts of the Go runtime's function table
// (runtime.pcHeader and what it points to) that its header measures.
type PCLnTab struct {
	Funcs     int // functions
	FuncNames int // their names (funcnametab)
	Files     int // the compilation unit and file tables
	PCTab     int // the PC-value tables: stack frame size, file, line, inlining and stack maps by PC
}

// segment is one data segment: bytes at an address of linear memory.
type segment struct {
	addr int
	data []byte
}

var sectionNames = map[byte]string{0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory",
	6: "global", 7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount"}

// ReadModule reads a wasm module's sections, its function bodies and
// their names.
func ReadModule(data []byte) (Module, error) {
	w := Module{Total: len(data), Code: map[string]int{}, Sections: map[string]int{}}
	if len(data) < 8 || !bytes.Equal(data[:4], []byte("\x00asm")) {
		return w, errors.New("not a wasm module")
	}
	r := &reader{b: data[8:]}
	imports := 0
	var bodies []int
	var segments []segment
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
		case 11:
			for n := s.uleb(); n > 0 && s.err == nil; n-- {
				s.uleb() // memory index
				if op := s.byte(); op != 0x41 {
					s.fail()
					break
				}
				addr := s.sleb()
				if end := s.byte(); end != 0x0b {
					s.fail()
					break
				}
				segments = append(segments, segment{addr: int(addr), data: s.next(int(s.uleb()))})
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
		w.Code[names[imports+i]] += l
	}
	w.PCLn = pclnTab(segments)
	return w, nil
}

// pcHeaderStart is how runtime.pcHeader begins in a Go 1.20+ wasm module:
// the magic 0xfffffff1, two zero bytes, the instruction size 1 and the
// pointer size 8.
var pcHeaderStart = []byte{0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8}

// pclnTab finds runtime.pcHeader in the data segments and reads the
// offsets of the tables after it; nil when there is none.
func pclnTab(segments []segment) *PCLnTab {
	for _, seg := range segments {
		i := bytes.Index(seg.data, pcHeaderStart)
		if i < 0 {
			continue
		}
		base := seg.addr + i
		// Words of the header after the magic: nfunc, nfiles, unused,
		// funcnameOffset, cuOffset, filetabOffset, pctabOffset, pclnOffset.
		word := func(n int) int { return int(readMemory(segments, base+8*n, 8)) }
		return &PCLnTab{
			Funcs:     word(1),
			FuncNames: word(5) - word(4),
			Files:     word(7) - word(5),
			PCTab:     word(8) - word(7),
		}
	}
	return nil
}

// readMemory reads a little-endian integer of n bytes at addr of the
// memory the segments initialise (zero between them).
func readMemory(segments []segment, addr, n int) uint64 {
	var b [8]byte
	for _, seg := range segments {
		for j := range n {
			if k := addr + j - seg.addr; k >= 0 && k < len(seg.data) {
				b[j] = seg.data[k]
			}
		}
	}
	return binary.LittleEndian.Uint64(b[:])
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

func (r *reader) sleb() int64 {
	if r.err != nil {
		return 0
	}
	var v int64
	var shift uint
	for {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
		if shift >= 64 {
			r.fail()
			return 0
		}
	}
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
