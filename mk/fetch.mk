# pkg/fetch: HTTP requests over the browser's fetch in js/wasm. Its native
# test runs in test-unit; this target runs its js/wasm tests under Node.js,
# whose fetch reaches a loopback server the test starts with Node's http
# module (testdata/server.js).
.PHONY: test-fetch

FETCH_WASM_PKGS := ./pkg/fetch

test-fetch: node ## pkg/fetch as js/wasm under Node.js, against a loopback server
	$(WASM_TEST) -count=1 $(FETCH_WASM_PKGS)
