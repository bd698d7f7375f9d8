# Skill Workbench — build and test entry points.
# `make test` runs every test layer; `make run` serves the workbench locally
# with its browser and host bodies; `make bodies ORIGIN=…` runs those bodies
# for a deployed workbench page.

GO        ?= go
FUZZRUNS  ?= 30000

.PHONY: test run site build fmt-check vet test-unit test-fuzz bench fixtures

# The test layers of DESIGN §11, each a target of its own; every mk/*.mk
# appends its targets to the layer they belong to.
#   native   gofmt, vet, unit tests, fuzz seeds and short fuzz runs
#   wasm     GOOS=js tests under Node.js and in headless Chromium (real IndexedDB)
#   interop  real MCP servers: go-sdk, server-everything, Playwright MCP
#   worker   the Go Worker under `wrangler dev` (workerd)
#   e2e      the built app in Chromium against `workbench serve`
#   smoke    the benchmark programs run once on small inputs (not measurements)
LAYER_NATIVE  := fmt-check vet test-unit test-fuzz
LAYER_WASM    :=
LAYER_INTEROP :=
LAYER_WORKER  :=
LAYER_E2E     :=
LAYER_SMOKE   :=
TEST_LAYERS   :=
include $(wildcard mk/*.mk)
LAYERS := native wasm interop worker e2e smoke
ifneq ($(strip $(TEST_LAYERS)),)
$(error $(TEST_LAYERS): append a test target to one of the LAYER_* lists, not to TEST_LAYERS)
endif

.PHONY: $(addprefix test-layer-,$(LAYERS))
test-layer-native: $(LAYER_NATIVE)
test-layer-wasm: $(LAYER_WASM)
test-layer-interop: $(LAYER_INTEROP)
test-layer-worker: $(LAYER_WORKER)
test-layer-e2e: $(LAYER_E2E)
test-layer-smoke: $(LAYER_SMOKE)

# Every layer in turn, stopping at the first that fails; each one's wall
# time is printed at the end and kept in build/test-times.txt.
#
# While the wasm and interop layers run in the foreground, the site the
# e2e layer needs is built and then the worker layer runs, in the
# background: compiling app.wasm is CPU the foreground layers leave idle,
# and the worker layer spends most of its time waiting on wrangler dev's
# clocks and connections (≈ 34 s of CPU in 89 s). The site is built
# before wrangler dev serves it (it watches its assets and reloads when
# they change), and both are over before the e2e layer starts. The
# worker layer's output is kept in build/test-worker.log and printed
# when it is over. The npm packages are installed first, once: both
# sides need them.
test:
	@mkdir -p build && : > build/test-times.txt; began=$$(date +%s); \
	layer() { start=$$(date +%s); $(MAKE) --no-print-directory test-layer-$$1; rc=$$?; \
		echo "layer $$1: $$(( $$(date +%s) - start )) s$$2" >> build/test-times.txt; return $$rc; }; \
	failed() { echo "make test: $$1 failed"; exit 1; }; \
	$(MAKE) --no-print-directory node-deps || exit 1; \
	layer native || failed "layer native"; \
	{ start=$$(date +%s); if $(MAKE) --no-print-directory build; then \
		echo "site build: $$(( $$(date +%s) - start )) s (in the background, beside wasm and interop)" >> build/test-times.txt; \
		layer worker " (in the background, after the site build, beside wasm and interop)"; \
	  else echo "the site build failed"; false; fi; } > build/test-worker.log 2>&1 & bg=$$!; \
	fg=ok; layer wasm || fg="layer wasm"; \
	[ "$$fg" != ok ] || layer interop || fg="layer interop"; \
	bgok=yes; wait $$bg || bgok=no; \
	echo "--- the site build and the worker layer (in the background):"; cat build/test-worker.log; \
	[ "$$fg" = ok ] || failed "$$fg"; \
	[ $$bgok = yes ] || failed "the site build or layer worker"; \
	layer e2e || failed "layer e2e"; \
	layer smoke || failed "layer smoke"; \
	echo "all: $$(( $$(date +%s) - began )) s" >> build/test-times.txt; \
	echo "make test: every layer passed"; cat build/test-times.txt

# The deployable site in build/site: the browser app (mk/app.mk).
site: build

# Serves the site, the OpenRouter proxy and the browser and host bodies
# on http://127.0.0.1:8000, installing the npm packages and Chromium the
# bodies need when they are missing. Flags pass through:
# make run ARGS='--no-bodies', ARGS='--headed --host-dir ~/notes'.
run: site node-deps chromium
	CHROMIUM=$(CHROMIUM) $(GO) run ./cmd/workbench serve --addr 127.0.0.1:8000 --site build/site $(ARGS)

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./pkg/...

test-unit:
	$(GO) test -count=1 ./...

# Each fuzz target runs a fixed number of inputs on top of its committed
# seed corpus. A count rather than a duration: a run whose time limit ends
# while a worker is busy fails with "context deadline exceeded" although
# nothing was found. New interesting inputs are not minimized (slow for
# bundle-sized inputs); a real failure is still reported and written to
# testdata.
FUZZ = $(GO) test -run '^$$' -fuzztime $(FUZZRUNS)x -fuzzminimizetime 0s
# Targets whose every input compiles or validates a whole schema run fewer.
FUZZ_SHORT = $(GO) test -run '^$$' -fuzztime $$(( $(FUZZRUNS) / 10 ))x -fuzzminimizetime 0s
test-fuzz:
	$(FUZZ) -fuzz '^FuzzParse$$' ./pkg/canonjson
	$(FUZZ) -fuzz '^FuzzCanonicalMatchesReference$$' ./pkg/canonjson
	$(FUZZ) -fuzz '^FuzzVerify$$' ./pkg/verify
	$(FUZZ) -fuzz '^FuzzReader$$' ./pkg/sse
	$(FUZZ) -fuzz '^FuzzReadResponse$$' ./pkg/mcp
	$(FUZZ) -fuzz '^FuzzCheckPath$$' ./pkg/proxy
	$(FUZZ) -fuzz '^FuzzCheckMCPPath$$' ./pkg/proxy
	$(FUZZ) -fuzz '^FuzzRawMember$$' ./pkg/store
	$(FUZZ) -fuzz '^FuzzScanPII$$' ./pkg/redact
	$(FUZZ) -fuzz '^FuzzKnownFind$$' ./pkg/redact
	$(FUZZ_SHORT) -fuzz '^FuzzFastPattern$$' ./schemas
	$(FUZZ_SHORT) -fuzz '^FuzzEdgePlan$$' ./schemas
	$(FUZZ_SHORT) -fuzz '^FuzzCompile$$' ./pkg/schemaform

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/...

# Rewrites the spec §8.2 fixture files from a fresh, deterministic run of
# the workbench (demonstrate, crystallize, replay, redact, verify).
fixtures:
	$(GO) test -count=1 -run '^TestFixtureFiles$$' ./pkg/assemble -args -update
