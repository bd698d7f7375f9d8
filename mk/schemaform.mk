# Generated input forms: pkg/schemaform (a form model from a tool's JSON
# Schema) and the app's schemaForm component. The native unit tests run in
# test-unit; this target adds
#   - the committed schema corpus compared with what server-everything and
#     Playwright MCP list today (both started from node_modules);
#   - pkg/schemaform's tests compiled to WebAssembly, under Node;
#   - the component driven in headless Chromium (wasmbrowsertest), and,
#     in the same run, the skill page tabs' settle (app/ownctx_wasm_test.go)
#     and the capability palette's state, which need go-app's OnMount,
#     called only in a browser.
#
#   make test-schemaform     all of the above (the wasm layer runs the
#                            same parts: test-schemaform-corpus,
#                            test-schemaform-browser, and the package in
#                            test-wasm-node)
#   make schemaform-corpus   regenerate pkg/schemaform/testdata/corpus
.PHONY: test-schemaform test-schemaform-corpus test-schemaform-browser schemaform-corpus

SCHEMAFORM_WASM_PKGS := ./pkg/schemaform

test-schemaform: node test-schemaform-corpus test-schemaform-browser ## the schema corpus, pkg/schemaform as js/wasm, the form and palette components in Chromium
	$(WASM_TEST) -count=1 $(SCHEMAFORM_WASM_PKGS)

test-schemaform-corpus: node-deps ## the committed schema corpus against what the live servers list
	$(GO) test -count=1 ./pkg/schemaform -run '^TestCorpus$$' -check-corpus

test-schemaform-browser: chromium $(WASMBROWSERTEST_STAMP) ## the form and palette components, and the skill page tabs' settle, in Chromium
	$(call wasm_browser_test,-run '^(TestSchemaForm|TestSettle|TestPalette)' ./app)

schemaform-corpus: node-deps ## regenerate pkg/schemaform's schema corpus from the live servers
	$(GO) test -count=1 ./pkg/schemaform -run '^TestCorpus$$' -update
