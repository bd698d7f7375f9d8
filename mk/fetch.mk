# pkg/fetch: HTTP requests over the browser's fetch in js/wasm. Its native
# test runs in test-unit; this layer runs its js/wasm tests under Node.js,
# whose fetch reaches a loopback server the test starts with Node's http
# module (testdata/server.js).
#
#   make test-fetch   pkg/fetch compiled to WebAssembly, tested under Node.js
.PHONY: test-fetch

test-fetch: node
	$(WASM_TEST) -count=1 ./pkg/fetch

LAYER_WASM += test-fetch
