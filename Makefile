# Skill Workbench — build and test entry points. `make help` lists every
# target with one line each. `make test` runs every test layer; `make run`
# serves the workbench locally with its browser and host bodies; `make
# bodies ORIGIN=…` runs those bodies for a deployed workbench page.
#
# This file holds the test layers and the variables more than one file
# uses; each mk/*.mk holds the targets of one part of the project and the
# variables only it uses.

# Variables more than one mk/*.mk uses. Each may be set on the command
# line (make test GO=go1.26.8).
GO        ?= go
# Debian's Chromium, installed by `make chromium` when missing.
CHROMIUM  ?= /usr/bin/chromium
# Inputs per fuzz target on top of its committed seed corpus.
FUZZRUNS  ?= 30000
# Flags `make run` and `make bodies` pass through to the command.
ARGS      ?=
# The deployable site: written by `make build` (mk/app.mk), served by
# wrangler (mk/proxy.mk).
SITE_DIR  := build/site

# `go test` of GOOS=js packages under Node.js (go_js_wasm_exec).
WASM_TEST = PATH="$$($(GO) env GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test

# Each fuzz target runs a fixed number of inputs on top of its committed
# seed corpus. A count rather than a duration: a run whose time limit ends
# while a worker is busy fails with "context deadline exceeded" although
# nothing was found. New interesting inputs are not minimized (slow for
# bundle-sized inputs); a real failure is still reported and written to
# testdata.
FUZZ = $(GO) test -run '^$$' -fuzztime $(FUZZRUNS)x -fuzzminimizetime 0s

# wasmbrowsertest runs GOOS=js tests in headless Chromium (mk/store.mk
# installs it; the store's and the schema form's tests use it). It finds
# the browser on PATH by name (chromium first among the names it tries) and
# adds --no-sandbox itself when run as root. The stamp names the version,
# so a version bump reinstalls.
WASMBROWSERTEST_VERSION := v0.11.0
STORE_BIN               := $(CURDIR)/.cache/bin
WASMBROWSERTEST         := $(STORE_BIN)/wasmbrowsertest
WASMBROWSERTEST_STAMP   := $(STORE_BIN)/.wasmbrowsertest-$(WASMBROWSERTEST_VERSION)
STORE_BROWSER_PATH      := $(CURDIR)/.cache/store-browser

# wasm_browser_test runs `go test $(1)` as js/wasm in headless Chromium
# through wasmbrowsertest. Its old DevTools protocol bindings log every
# event they cannot parse ("unknown IPAddressSpace value"); those lines are
# dropped, the test output and exit status are kept. It leaves each
# browser's profile directory behind, so it runs with a TMPDIR of its own,
# removed afterwards.
define wasm_browser_test
	@mkdir -p $(STORE_BROWSER_PATH) && ln -sf $(CHROMIUM) $(STORE_BROWSER_PATH)/chromium
	@status=0; tmp=$$(mktemp -d); out=$$(TMPDIR="$$tmp" PATH="$(STORE_BROWSER_PATH):$$PATH" GOOS=js GOARCH=wasm \
		$(GO) test -count=1 -exec $(WASMBROWSERTEST) $(1) 2>&1) || status=$$?; \
	rm -rf "$$tmp"; printf '%s\n' "$$out" | grep -v 'unknown IPAddressSpace value'; exit $$status
endef

# `make` alone builds the site.
.DEFAULT_GOAL := build

# The test layers of DESIGN §11, one target each; a layer is its
# prerequisites, run in the order listed. A test target that is in no
# layer is not run by `make test`.
.PHONY: test help $(addprefix test-layer-,native wasm interop worker e2e smoke)

test-layer-native: fmt-check vet test-unit test-fuzz test-redact ## gofmt, vet, unit tests, fuzz seeds and short fuzz runs
test-layer-wasm: test-browser-canon test-wasm-node test-schemaform-corpus test-schemaform-browser test-sim-fuzz test-store-browser ## GOOS=js tests under Node.js and in headless Chromium (real IndexedDB)
test-layer-interop: test-bodies test-capability-interop test-mcp-interop test-services ## real MCP servers: go-sdk, server-everything, Playwright MCP, the filesystem server
test-layer-worker: test-worker ## the Go Worker under `wrangler dev` (workerd)
test-layer-e2e: test-e2e ## the built app in Chromium against `workbench serve`
test-layer-smoke: check-app-size check-bench-app check-bench-palette ## app.wasm within its size ceiling; the benchmark programs run once on small inputs (not measurements)

# The wasm layer runs the Node.js half of test-fetch, test-import-wasm,
# test-jsbytes, test-schemaform, test-schemas-wasm, test-sim, test-capability
# and test-mcp as one go test, so that the packages' test binaries are
# linked and run two at a time; run one after the other, each left a core
# idle while it linked. (The interop layer runs the last two's interop
# halves.)
WASM_NODE_PKGS = $(FETCH_WASM_PKGS) $(IMPORT_PKGS) $(JSBYTES_WASM_PKGS) $(SCHEMAFORM_WASM_PKGS) \
	$(SCHEMAS_WASM_PKGS) $(SIM_WASM_PKGS) $(CAPABILITY_WASM_PKGS) $(MCP_WASM_PKGS)

test-wasm-node: node ## every package the wasm layer runs as js/wasm under Node.js, in one go test
	$(WASM_TEST) -count=1 -timeout 20m $(WASM_NODE_PKGS)

# Every layer in turn, stopping at the first that fails, with the site
# build and the worker layer in the background beside native, wasm and
# interop; mk/test.sh says how and why. MAKE is passed so that the layers run under
# this make's flags (-n included) and command-line variables.
test: ## every test layer; each layer's time in build/test-times.txt
	@MAKE='$(MAKE)' sh mk/test.sh

# One line per target that has a `## ` comment on its rule line.
help: ## this list
	@awk -F ':.*## ' '/^[a-zA-Z0-9_-]+:.*## / { printf "  %-22s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

include $(wildcard mk/*.mk)
