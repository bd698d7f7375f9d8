# Schemas and fixture scenarios: the browser build validates with the same
# package, so its tests also run compiled to WebAssembly, under Node.
.PHONY: test-schemas-wasm

SCHEMAS_WASM_PKGS := ./schemas/ ./fixtures/

test-schemas-wasm: node ## schemas/ and fixtures/ as js/wasm under Node.js
	$(WASM_TEST) -count=1 $(SCHEMAS_WASM_PKGS)
