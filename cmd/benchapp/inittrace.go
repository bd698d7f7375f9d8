package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
)

// initProbe runs in the page before any of its scripts: it makes Go's
// runtime start with GODEBUG=inittrace=1 (the environment wasm_exec.js
// passes is the Go object's env, set here in a subclass of the Go class
// wasm_exec.js defines) and keeps the lines the runtime prints for each
// package's initialisation, which wasm_exec.js writes with console.log.
const initProbe = `(() => {
  const lines = window.__inittrace = [];
  const log = console.log;
  console.log = function (...args) {
    if (typeof args[0] === "string") {
      for (const l of args[0].split("\n")) if (l.startsWith("init ")) lines.push(l);
    }
    return log.apply(console, args);
  };
  let Go;
  Object.defineProperty(globalThis, "Go", {
    configurable: true,
    get() { return Go; },
    set(c) {
      Go = class extends c {
        constructor(...a) { super(...a); this.env = Object.assign({}, this.env, {GODEBUG: "inittrace=1"}); }
      };
    },
  });
})();`

// initLine is one line of GODEBUG=inittrace=1: the package, when its
// initialisation started (since the runtime started), its wall time and
// what it allocated.
type initLine struct {
	pkg           string
	at, clock     float64 // ms
	bytes, allocs int
}

var initRE = regexp.MustCompile(`^init (\S+) @([0-9.]+) ms, ([0-9.]+) ms clock, (\d+) bytes, (\d+) allocs`)

func parseInitTrace(lines []string) ([]initLine, error) {
	var out []initLine
	for _, l := range lines {
		m := initRE.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("not an inittrace line: %q", l)
		}
		at, _ := strconv.ParseFloat(m[2], 64)
		clock, _ := strconv.ParseFloat(m[3], 64)
		b, _ := strconv.Atoi(m[4])
		a, _ := strconv.Atoi(m[5])
		out = append(out, initLine{pkg: m[1], at: at, clock: clock, bytes: b, allocs: a})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the runtime printed no inittrace lines")
	}
	return out, nil
}

// measureInit loads / in a fresh profile with the init trace on and
// returns the runtime's lines.
func measureInit(ctx context.Context, cfg config, base string) ([]initLine, error) {
	b, err := newBrowser(ctx, cfg.chromium)
	if err != nil {
		return nil, err
	}
	defer b.close()
	if err := b.addInitScript(initProbe); err != nil {
		return nil, err
	}
	if err := b.open(base, "/"); err != nil {
		return nil, err
	}
	lines, err := eval[[]string](b, `window.__inittrace`)
	if err != nil {
		return nil, err
	}
	return parseInitTrace(lines)
}

// writeInitTable writes the packages whose initialisation took longest
// (the median over the runs), the sum over all packages and when main's
// initialisation ended.
func writeInitTable(w io.Writer, runs [][]initLine, n int) {
	clocks := map[string][]float64{}
	last := map[string]initLine{}
	var sums, ends []float64
	for _, r := range runs {
		sum := 0.0
		for _, l := range r {
			clocks[l.pkg] = append(clocks[l.pkg], l.clock)
			last[l.pkg] = l
			sum += l.clock
		}
		sums = append(sums, sum)
		end := r[len(r)-1]
		ends = append(ends, end.at+end.clock)
	}
	pkgs := make([]string, 0, len(clocks))
	for p := range clocks {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool {
		a, b := median(clocks[pkgs[i]]), median(clocks[pkgs[j]])
		if a != b {
			return a > b
		}
		return pkgs[i] < pkgs[j]
	})
	fmt.Fprintf(w, "\nPackage initialisation in the browser (GODEBUG=inittrace=1, %d cold loads of /, median (min–max)): %d packages, "+
		"%s in all; the last (main) done %s after the runtime started\n\n", len(runs), len(pkgs), spread(sums), spread(ends))
	fmt.Fprintln(w, "| package | init clock | allocated |")
	fmt.Fprintln(w, "|---|---|---|")
	for i, p := range pkgs {
		if i == n {
			break
		}
		fmt.Fprintf(w, "| %s | %s | %d bytes, %d allocs |\n", p, spreadFine(clocks[p]), last[p].bytes, last[p].allocs)
	}
}

// spreadFine is spread with two decimals, for times of a few ms.
func spreadFine(xs []float64) string {
	if len(xs) == 1 {
		return fmt.Sprintf("%.2f ms", xs[0])
	}
	return fmt.Sprintf("%.2f ms (%.2f–%.2f)", median(xs), slices.Min(xs), slices.Max(xs))
}
