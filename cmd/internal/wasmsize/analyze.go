package wasmsize

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Package is one Go package's share of a module.
type Package struct {
	Path   string
	Module string // the Go module it belongs to; "std" for the standard library
	Code   int    // function bodies
	Data   int    // data symbols the linker kept, attributed to it
}

// Report says where a module's bytes go, by Go package.
type Report struct {
	Module   Module
	Packages []Package // largest (code + data) first
	// Data is the size of the data section; Attributed the part of it
	// whose symbols have a known size and owner. The rest is what the
	// linker writes itself (the function and PC tables, type and itab
	// links, the module data), alignment, and symbols whose size the
	// compiled packages do not give.
	Data, Attributed int
}

// Analyze builds the package pkg (a pattern such as "./app", resolved in
// dir) for js/wasm with buildFlags and without -s -w, with the linker's
// -dumpdep graph, in work, and attributes the module's bytes to Go packages: function
// bodies by the names in the module's "name" section, data symbols by
// the graph (which symbols were kept, and who refers to each first) and
// by their sizes in the compiled packages (go tool nm -size).
func Analyze(ctx context.Context, dir, pkg, work string, buildFlags []string) (Report, error) {
	env := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	// The packages are listed with the build's flags, so that the compiled
	// packages whose sizes are read are the module's.
	listArgs := append([]string{"list", "-trimpath", "-export", "-deps"}, buildFlags...)
	listArgs = append(listArgs, "-f", "{{.ImportPath}}\t{{.Export}}\t{{if .Standard}}std{{else}}{{with .Module}}{{.Path}}{{end}}{{end}}\t{{.Name}}", pkg)
	list := exec.CommandContext(ctx, "go", listArgs...)
	list.Dir, list.Env = dir, env
	var stderr bytes.Buffer
	list.Stderr = &stderr
	listed, err := list.Output()
	if err != nil {
		return Report{}, fmt.Errorf("go list %s: %w\n%s", pkg, err, stderr.Bytes())
	}
	modules := map[string]string{}
	var exports []string
	mainPath := ""
	for line := range strings.Lines(string(listed)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 4 {
			continue
		}
		modules[f[0]] = f[2]
		if f[3] == "main" {
			// The linker names the main package's symbols "main.…".
			modules["main"], mainPath = f[2], f[0]
		}
		if f[1] != "" {
			exports = append(exports, f[1])
		}
	}

	out := filepath.Join(work, "names.wasm")
	buildArgs := append([]string{"build", "-trimpath", "-ldflags=-dumpdep"}, buildFlags...)
	build := exec.CommandContext(ctx, "go", append(buildArgs, "-o", out, pkg)...)
	build.Dir, build.Env = dir, env
	var dump bytes.Buffer
	build.Stderr = &dump
	if err := build.Run(); err != nil {
		return Report{}, fmt.Errorf("go build %s: %w\n%s", pkg, err, tail(dump.Bytes()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return Report{}, err
	}
	m, err := ReadModule(data)
	if err != nil {
		return Report{}, err
	}

	nm := exec.CommandContext(ctx, "go", append([]string{"tool", "nm", "-size"}, exports...)...)
	nm.Dir, nm.Env = dir, env
	stderr.Reset()
	nm.Stderr = &stderr
	syms, err := nm.Output()
	if err != nil {
		return Report{}, fmt.Errorf("go tool nm: %w\n%s", err, stderr.Bytes())
	}
	return attribute(m, modules, mainPath, dump.Bytes(), symbolSizes(syms)), nil
}

// symbolSizes reads `go tool nm -size` of several files ("file:\taddr
// size type name" per line) into the size of each data symbol by name
// (R and D: what the module's data section holds; B, memory the runtime
// zeroes, takes no bytes of the module); a symbol defined in several
// packages (dupok) counts once.
func symbolSizes(out []byte) map[string]int {
	sizes := map[string]int{}
	for line := range strings.Lines(string(out)) {
		if _, rest, ok := strings.Cut(line, ":\t"); ok {
			line = rest
		}
		f := strings.Fields(line)
		if len(f) < 4 || len(f[2]) != 1 || strings.ContainsAny(f[2], "TtUBb") {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		// The name is the rest of the line after the type letter.
		i := strings.Index(line, " "+f[2]+" ")
		name := strings.TrimSpace(line[i+3:])
		name = staticSuffix.ReplaceAllString(name, "")
		sizes[name] = max(sizes[name], n)
	}
	return sizes
}

// staticSuffix is the version nm gives a file-local symbol ("<1>"),
// which the linker's graph leaves out.
var staticSuffix = regexp.MustCompile(`<\d+>$`)

// annotation is what -dumpdep appends to a symbol kept for an interface.
var annotation = regexp.MustCompile(` <[A-Za-z]+>$`)

// attribute gives each function body and each kept data symbol of m to
// a package of modules (import path to module path; mainPath is the
// import path of the package the linker calls "main"), using the
// linker's dependency dump and the data symbols' sizes.
func attribute(m Module, modules map[string]string, mainPath string, dump []byte, sizes map[string]int) Report {
	mangled := map[string]string{}
	for p := range modules {
		mangled[nameRegexp.ReplaceAllString(p, "_")] = p
	}
	byPath := map[string]*Package{}
	get := func(p string) *Package {
		if byPath[p] == nil {
			mod, path := modules[p], p
			switch {
			case p == "(other)":
				mod, path = "(no package)", "(no package: the runtime's assembly and linker-made functions)"
			case p == "main":
				path = "main (" + mainPath + ")"
			}
			byPath[p] = &Package{Path: path, Module: mod}
		}
		return byPath[p]
	}
	for fn, n := range m.Code {
		p := ownerOf(fn, mangled)
		if path, ok := mangled[p]; ok {
			p = path
		}
		get(p).Code += n
	}

	// The first symbol to refer to each kept symbol, in the graph's order.
	referrer := map[string]string{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(dump))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		from, to, ok := strings.Cut(sc.Text(), " -> ")
		if !ok {
			continue
		}
		from, to = annotation.ReplaceAllString(from, ""), annotation.ReplaceAllString(to, "")
		for _, s := range []string{from, to} {
			if _, seen := referrer[s]; !seen {
				referrer[s] = ""
				order = append(order, s)
			}
		}
		if referrer[to] == "" && to != from {
			referrer[to] = from
		}
	}
	r := Report{Module: m, Data: m.Sections["data"]}
	for _, s := range order {
		n, ok := dataSize(s, sizes)
		if !ok {
			continue
		}
		owner := "(shared)"
		for s2, depth := s, 0; s2 != "" && depth < 16; s2, depth = referrer[s2], depth+1 {
			if p := ownerOf(s2, modules); p != "(other)" {
				owner = p
				break
			}
		}
		get(owner).Data += n
		r.Attributed += n
	}
	for _, p := range byPath {
		r.Packages = append(r.Packages, *p)
	}
	sort.Slice(r.Packages, func(i, j int) bool {
		a, b := r.Packages[i], r.Packages[j]
		if a.Code+a.Data != b.Code+b.Data {
			return a.Code+a.Data > b.Code+b.Data
		}
		return a.Path < b.Path
	})
	return r
}

// dataSize is the size of a kept data symbol: from the compiled packages,
// or for a string constant the length of its text.
func dataSize(sym string, sizes map[string]int) (int, bool) {
	if n, ok := sizes[sym]; ok {
		return n, true
	}
	if q, ok := strings.CutPrefix(sym, "go:string."); ok {
		if s, err := strconv.Unquote(q); err == nil {
			return len(s), true
		}
	}
	return 0, false
}

// ownerOf is the Go package a symbol belongs to: the longest package
// path in paths that the symbol's name starts with, followed by a dot,
// after the prefixes the compiler gives types, itabs and type equality
// functions. "(other)" when there is none.
func ownerOf[V any](sym string, paths map[string]V) string {
	for _, prefix := range []string{"type:.eq.", "type_.eq.", "type:*", "type:", "go:itab.*", "go:itab."} {
		if rest, ok := strings.CutPrefix(sym, prefix); ok {
			sym = rest
			break
		}
	}
	best := ""
	for i := 0; i < len(sym); i++ {
		if sym[i] != '.' {
			continue
		}
		if _, ok := paths[sym[:i]]; ok {
			best = sym[:i]
		}
	}
	if best == "" {
		return "(other)"
	}
	return best
}

// nameRegexp is what the linker replaces with "_" in a function's name
// in the "name" section (cmd/link/internal/wasm).
var nameRegexp = regexp.MustCompile(`[^\w.]`)

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}
