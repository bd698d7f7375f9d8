# pkg/jsbytes: the byte copies between Go and JavaScript that pkg/store/idb
# and pkg/signature/webcrypto share, tested as js/wasm under Node.js.
.PHONY: test-jsbytes

JSBYTES_WASM_PKGS := ./pkg/jsbytes

test-jsbytes: node ## pkg/jsbytes as js/wasm under Node.js
	$(WASM_TEST) -count=1 $(JSBYTES_WASM_PKGS)
