# Measurements of the browser app (cmd/benchapp) and the screenshots of
# its routes (e2e/screenshots_test.go), both against the built site under
# `workbench serve` in headless Chromium. docs/perf/app-bench.md says what each
# number means and records the results.
#
#   make bench-app      app.wasm brotli size, cold time to interactive,
#                       10 MB import, /skills with 10,000 skills (a benchmark)
#   make check-bench-app  one quick run of each measurement on small inputs
#                       (in the smoke layer: ≈ 30 s on a quiet machine; it
#                       judges no goal)
#   make profile-app FLOW=tti|import|skills
#                       one flow under Chromium's sampling profiler, on a
#                       build of the app that keeps its function names
#   make screenshots    rewrite docs/screenshots/<route>-<width>.png from an e2e run
#   make bench-app-network  / under emulated networks ("desktop" 10 Mbps 40 ms,
#                       "4G" 9 Mbps 150 ms), cold and repeat; docs/perf/network.md
#   make bench-app-init Go's package initialisation in the page, traced by the
#                       runtime (GODEBUG=inittrace=1); docs/perf/app-tti.md
#   make bench-app-repeat  a return visit to / after 10 s on a first page
#                       (FIRST=/skills picks it): whether app.wasm came from
#                       Chromium's code cache; docs/perf/app-repeat.md

BENCH_APP_RUNS ?= 5
FLOW ?= tti
FIRST ?= /
.PHONY: bench-app check-bench-app profile-app screenshots bench-app-network bench-app-init bench-app-repeat

bench-app: chromium build ## the browser app's size, start, 10 MB import and /skills (docs/perf/app-bench.md)
	$(GO) run ./cmd/benchapp -runs $(BENCH_APP_RUNS) -chromium $(CHROMIUM)

bench-app-network: chromium build ## / under emulated desktop and 4G networks, cold and repeat
	$(GO) run ./cmd/benchapp -only network -network all -runs $(BENCH_APP_RUNS) -chromium $(CHROMIUM)

bench-app-init: chromium build ## Go's package initialisation in the page (GODEBUG=inittrace=1), by package
	$(GO) run ./cmd/benchapp -only init -runs $(BENCH_APP_RUNS) -chromium $(CHROMIUM)

bench-app-repeat: chromium build ## a return visit to / after a first visit (FIRST=/): code cache used, time to interactive
	$(GO) run ./cmd/benchapp -only repeat -first $(FIRST) -runs $(BENCH_APP_RUNS) -chromium $(CHROMIUM)

check-bench-app: chromium build ## each bench-app measurement once on small inputs (smoke layer)
	$(GO) run ./cmd/benchapp -check -chromium $(CHROMIUM)

profile-app: chromium ## one flow under Chromium's profiler: FLOW=tti|import|skills
	$(GO) run ./cmd/benchapp -profile $(FLOW) -chromium $(CHROMIUM)

screenshots: chromium build ## rewrite docs/screenshots/ from an e2e run
	WORKBENCH_E2E=1 WORKBENCH_SCREENSHOTS=1 CHROMIUM=$(CHROMIUM) \
		$(GO) test -count=1 -timeout 10m -run '^TestScreenshots' ./e2e/
