# The local library (pkg/store): the IndexedDB store's own tests, compiled
# to WebAssembly and run in real headless Chromium by wasmbrowsertest
# (installed here; its variables are in the Makefile, since
# mk/schemaform.mk runs it too). The in-memory store and the shared
# conformance suite run natively in test-unit.
#
#   make test-store-browser   (wasm layer) pkg/store/idb in Debian Chromium
#   make test-store-node      the same tests in Node over fake-indexeddb: a
#                             quick loop against a fake, not a substitute

.PHONY: test-store-browser test-store-node

# Installed outside the module: it does not build alongside the module's
# own chromedp.
$(WASMBROWSERTEST_STAMP):
	mkdir -p $(STORE_BIN)
	GOBIN=$(STORE_BIN) $(GO) install github.com/agnivade/wasmbrowsertest@$(WASMBROWSERTEST_VERSION)
	touch $@

test-store-browser: chromium $(WASMBROWSERTEST_STAMP) ## pkg/store/idb in headless Chromium (real IndexedDB)
	$(call wasm_browser_test,./pkg/store/idb)

test-store-node: node-deps ## pkg/store/idb under Node over fake-indexeddb (a quick loop, not a substitute)
	PATH="$$($(GO) env GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm \
	NODE_OPTIONS="--require $(CURDIR)/node_modules/fake-indexeddb/auto" \
		$(GO) test -count=1 ./pkg/store/idb
