# The local library (pkg/store): the IndexedDB store's own tests, compiled
# to WebAssembly and run in real headless Chromium by wasmbrowsertest. The
# in-memory store and the shared conformance suite run natively in
# test-unit.
#
#   make test-store-browser   pkg/store/idb in Debian Chromium (a test layer)
#   make test-store-node      the same tests in Node over fake-indexeddb: a
#                             quick loop against a fake, not a substitute

WASMBROWSERTEST_VERSION := v0.11.0
STORE_BIN       := $(CURDIR)/.cache/bin
WASMBROWSERTEST := $(STORE_BIN)/wasmbrowsertest
# wasmbrowsertest finds the browser on PATH by name (chromium first among
# the names it tries) and adds --no-sandbox itself when run as root.
STORE_BROWSER_PATH := $(CURDIR)/.cache/store-browser

.PHONY: test-store-browser test-store-node

# Installed outside the module: it does not build alongside the module's
# own chromedp. The stamp names the version, so a version bump reinstalls.
$(STORE_BIN)/.wasmbrowsertest-$(WASMBROWSERTEST_VERSION):
	mkdir -p $(STORE_BIN)
	GOBIN=$(STORE_BIN) $(GO) install github.com/agnivade/wasmbrowsertest@$(WASMBROWSERTEST_VERSION)
	touch $@

# Its old DevTools protocol bindings log every event they cannot parse
# ("unknown IPAddressSpace value"); those lines are dropped, the test
# output and exit status are kept.
test-store-browser: chromium $(STORE_BIN)/.wasmbrowsertest-$(WASMBROWSERTEST_VERSION)
	@mkdir -p $(STORE_BROWSER_PATH) && ln -sf $(CHROMIUM) $(STORE_BROWSER_PATH)/chromium
	@status=0; out=$$(PATH="$(STORE_BROWSER_PATH):$$PATH" GOOS=js GOARCH=wasm \
		$(GO) test -count=1 -exec $(WASMBROWSERTEST) ./pkg/store/idb 2>&1) || status=$$?; \
	printf '%s\n' "$$out" | grep -v 'unknown IPAddressSpace value'; exit $$status

test-store-node: node-deps
	PATH="$$($(GO) env GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm \
	NODE_OPTIONS="--require $(CURDIR)/node_modules/fake-indexeddb/auto" \
		$(GO) test -count=1 ./pkg/store/idb

LAYER_WASM += test-store-browser
