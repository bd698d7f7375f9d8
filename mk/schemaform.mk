# Generated input forms: pkg/schemaform (a form model from a tool's JSON
# Schema) and the app's schemaForm component. The native unit tests run in
# test-unit; this layer adds
#   - the committed schema corpus compared with what server-everything and
#     Playwright MCP list today (both started from node_modules);
#   - pkg/schemaform's tests compiled to WebAssembly, under Node;
#   - the component driven in headless Chromium (wasmbrowsertest), and,
#     in the same run, the skill page tabs' settle (app/ownctx_wasm_test.go),
#     which needs go-app's OnMount, called only in a browser.
#
#   make test-schemaform     the layer
#   make schemaform-corpus   regenerate pkg/schemaform/testdata/corpus
.PHONY: test-schemaform schemaform-corpus

# wasmbrowsertest and its browser link are store.mk's (included after
# this file, hence the recursive make rather than a prerequisite).
test-schemaform: node-deps chromium
	@$(MAKE) --no-print-directory $(STORE_BIN)/.wasmbrowsertest-$(WASMBROWSERTEST_VERSION)
	$(GO) test -count=1 ./pkg/schemaform -run '^TestCorpus$$' -check-corpus
	$(WASM_TEST) -count=1 ./pkg/schemaform
	@mkdir -p $(STORE_BROWSER_PATH) && ln -sf $(CHROMIUM) $(STORE_BROWSER_PATH)/chromium
	@status=0; out=$$(PATH="$(STORE_BROWSER_PATH):$$PATH" GOOS=js GOARCH=wasm \
		$(GO) test -count=1 -exec $(WASMBROWSERTEST) -run '^(TestSchemaForm|TestSettle|TestPalette)' ./app 2>&1) || status=$$?; \
	printf '%s\n' "$$out" | grep -v 'unknown IPAddressSpace value'; exit $$status

schemaform-corpus: node-deps
	$(GO) test -count=1 ./pkg/schemaform -run '^TestCorpus$$' -update

LAYER_WASM += test-schemaform
