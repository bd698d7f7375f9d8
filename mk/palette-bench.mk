# The capability palette's speed target: opening the palette with 500
# capabilities and filtering as you type stay under 50 ms per keystroke.
# BenchmarkPalette500 (e2e/palette_bench_test.go) drives the built site
# under `workbench serve` in headless Chromium, with the 500 capabilities
# served by the HTTP contract's conformance server; it times each
# keystroke inside the page and reports Chromium's CPU time beside the
# wall time. docs/palette.md says what each number means and records the
# results.
#
#   make bench-palette        PALETTE_BENCH_RUNS iterations (5)
#   make check-bench-palette  one iteration (in the smoke layer: ≈ 15 s once
#                             the site is built); it judges no goal
#
# `make bench-e2e` runs it too, with the other e2e benchmarks.
PALETTE_BENCH_RUNS ?= 5
.PHONY: bench-palette check-bench-palette

bench-palette: chromium build ## the palette with 500 capabilities, per keystroke, in Chromium
	WORKBENCH_E2E=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -run '^$$' -bench '^BenchmarkPalette500$$' \
		-benchtime $(PALETTE_BENCH_RUNS)x -timeout 30m ./e2e/

check-bench-palette: chromium build ## bench-palette once (smoke layer)
	WORKBENCH_E2E=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -run '^$$' -bench '^BenchmarkPalette500$$' \
		-benchtime 1x -timeout 10m ./e2e/
