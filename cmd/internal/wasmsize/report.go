package wasmsize

import (
	"fmt"
	"io"
	"sort"
)

// WriteMarkdown writes the report as Markdown tables: the sections, the
// Go modules, and the n largest packages (the rest summed).
func (r Report) WriteMarkdown(w io.Writer, n int) {
	mb := func(b int) string { return fmt.Sprintf("%.3f", float64(b)/1e6) }
	fmt.Fprintf(w, "Module built with function names: %d bytes.\n\n", r.Module.Total)
	fmt.Fprintln(w, "| section | MB |")
	fmt.Fprintln(w, "|---|---|")
	secs := make([]string, 0, len(r.Module.Sections))
	for s := range r.Module.Sections {
		secs = append(secs, s)
	}
	sort.Slice(secs, func(i, j int) bool { return r.Module.Sections[secs[i]] > r.Module.Sections[secs[j]] })
	for _, s := range secs {
		fmt.Fprintf(w, "| %s | %s |\n", s, mb(r.Module.Sections[s]))
	}

	code := 0
	mods := map[string]*Package{}
	for _, p := range r.Packages {
		code += p.Code
		if mods[p.Module] == nil {
			mods[p.Module] = &Package{Path: p.Module}
		}
		mods[p.Module].Code += p.Code
		mods[p.Module].Data += p.Data
	}
	var byMod []Package
	for _, m := range mods {
		byMod = append(byMod, *m)
	}
	sort.Slice(byMod, func(i, j int) bool {
		return byMod[i].Code+byMod[i].Data > byMod[j].Code+byMod[j].Data
	})
	rest := r.Data - r.Attributed
	fmt.Fprintf(w, "\nBy Go module (code: function bodies; data: the symbols the linker kept, by owner). "+
		"%s MB of the data section is what the linker writes itself.\n\n", mb(rest))
	fmt.Fprintln(w, "| module | code MB | data MB | total MB |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, m := range byMod {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", m.Path, mb(m.Code), mb(m.Data), mb(m.Code+m.Data))
	}
	if t := r.Module.PCLn; t != nil {
		for _, row := range []struct {
			what string
			n    int
		}{{fmt.Sprintf("the runtime's function table (%d functions): PC-value tables", t.Funcs), t.PCTab},
			{"the runtime's function table: function names", t.FuncNames},
			{"the runtime's function table: file tables", t.Files}} {
			fmt.Fprintf(w, "| %s | | %s | %s |\n", row.what, mb(row.n), mb(row.n))
			rest -= row.n
		}
	}
	fmt.Fprintf(w, "| the rest of data: function records, type and itab links, module data, alignment | | %s | %s |\n", mb(rest), mb(rest))
	fmt.Fprintf(w, "| **code and data sections** | %s | %s | %s |\n", mb(code), mb(r.Data), mb(code+r.Data))

	fmt.Fprintf(w, "\nThe %d largest packages\n\n", n)
	fmt.Fprintln(w, "| package | code MB | data MB | total MB |")
	fmt.Fprintln(w, "|---|---|---|---|")
	other := Package{}
	for i, p := range r.Packages {
		if i >= n {
			other.Code += p.Code
			other.Data += p.Data
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", p.Path, mb(p.Code), mb(p.Data), mb(p.Code+p.Data))
	}
	if len(r.Packages) > n {
		fmt.Fprintf(w, "| %d other packages | %s | %s | %s |\n", len(r.Packages)-n, mb(other.Code), mb(other.Data), mb(other.Code+other.Data))
	}
}
