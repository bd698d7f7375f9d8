// Command wasmsize says where the bytes of the browser app's module go,
// and checks that the module stays within its size ceiling.
//
// Usage:
//
//	wasmsize [-pkg ./app] [-top 40]
//	wasmsize -check FILE -max-raw BYTES -max-brotli BYTES [-brotli PROGRAM]
//
// The first form builds the package for js/wasm keeping function names,
// with the linker's dependency graph, and prints Markdown tables: the
// module's sections, its bytes by Go module, and the largest Go packages
// (function bodies from the "name" section; data symbols the linker kept,
// sized from the compiled packages). docs/perf/app-size.md holds the
// latest tables.
//
// -check reads a built module (build/site/web/app.wasm), compresses it
// with brotli at quality 11 and exits 1 when either size is above its
// ceiling. Both are sizes of a deterministic build and a deterministic
// compressor, so the check does not depend on the machine's load. The
// brotli size of a module is kept by its SHA-256 in the user's cache
// directory (workbench/wasmsize there), as Go keeps its build cache, so a
// fresh clone of the same module is checked at once: compressing 20 MB at
// quality 11 takes about a minute with the Go port, two thirds of that
// with -brotli naming the brotli program, which writes the same bytes.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"workbench/cmd/internal/wasmsize"
)

func main() {
	pkg := flag.String("pkg", "./app", "the package to build and measure")
	top := flag.Int("top", 40, "packages listed one by one")
	check := flag.String("check", "", "check this built module against -max-raw and -max-brotli instead")
	maxRaw := flag.Int("max-raw", 0, "with -check: the most bytes the module may have")
	maxBrotli := flag.Int("max-brotli", 0, "with -check: the most bytes it may have with brotli quality 11")
	cache := flag.String("cache", defaultCache(), "with -check: where brotli sizes are kept by the module's SHA-256")
	program := flag.String("brotli", "", "with -check: compress with this brotli program (the same bytes as the Go port, sooner) instead of the Go port")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	if *check != "" {
		if *maxRaw <= 0 || *maxBrotli <= 0 {
			fmt.Fprintln(os.Stderr, "wasmsize: -check needs -max-raw and -max-brotli")
			os.Exit(2)
		}
		over, err := checkSize(ctx, *check, *maxRaw, *maxBrotli, *cache, *program)
		if err != nil {
			fmt.Fprintln(os.Stderr, "wasmsize:", err)
			os.Exit(2)
		}
		if over {
			os.Exit(1)
		}
		return
	}

	work, err := os.MkdirTemp("", "wasmsize-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(work)
	// The app is measured as make build compiles it.
	var flags []string
	if filepath.Clean(*pkg) == "app" {
		if flags, err = wasmsize.AppBuildFlags("."); err != nil {
			fmt.Fprintln(os.Stderr, "wasmsize:", err)
			os.Exit(2)
		}
	}
	r, err := wasmsize.Analyze(ctx, ".", *pkg, work, flags)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(2)
	}
	r.WriteMarkdown(os.Stdout, *top)
}

// defaultCache is where -check keeps brotli sizes: the user's cache
// directory, else .cache in the working directory.
func defaultCache() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "workbench", "wasmsize")
	}
	return filepath.Join(".cache", "wasmsize")
}

// checkSize prints the module's raw and brotli sizes against their
// ceilings and reports whether either is over. It compresses with the
// brotli program when one is named, else with the Go port.
func checkSize(ctx context.Context, path string, maxRaw, maxBrotli int, cache, program string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(data)
	key := filepath.Join(cache, hex.EncodeToString(sum[:])+".brotli11")
	br := 0
	if b, err := os.ReadFile(key); err == nil {
		br, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if br <= 0 {
		if program != "" {
			br, err = wasmsize.BrotliProgram(ctx, program, data, 11)
		} else {
			br, err = wasmsize.Brotli(data, 11)
		}
		if err != nil {
			return false, err
		}
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return false, err
		}
		if err := os.WriteFile(key, []byte(strconv.Itoa(br)+"\n"), 0o644); err != nil {
			return false, err
		}
	}
	over := false
	for _, c := range []struct {
		what      string
		size, max int
	}{{"raw", len(data), maxRaw}, {"brotli 11", br, maxBrotli}} {
		verdict := "within"
		if c.size > c.max {
			verdict, over = "OVER", true
		}
		fmt.Printf("%s: %s %d bytes, ceiling %d: %s\n", path, c.what, c.size, c.max, verdict)
	}
	if over {
		fmt.Println(errors.New("the module grew past its ceiling: see docs/perf/app-size.md for where its bytes go (make wasm-size)"))
	}
	return over, nil
}
