# Schemas and fixture scenarios: the browser build validates with the same
# package, so its tests also run compiled to WebAssembly, under Node.
.PHONY: test-schemas-wasm
TEST_LAYERS += test-schemas-wasm

test-schemas-wasm:
	@command -v node >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq nodejs; }
	PATH="$$($(GO) env GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./schemas/ ./fixtures/
