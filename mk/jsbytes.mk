# pkg/jsbytes: the byte copies between Go and JavaScript that pkg/store/idb
# and pkg/signature/webcrypto share, tested as js/wasm under Node.js.
#
#   make test-jsbytes   pkg/jsbytes compiled to WebAssembly, tested under Node.js
.PHONY: test-jsbytes

test-jsbytes: node
	$(WASM_TEST) -count=1 ./pkg/jsbytes

LAYER_WASM += test-jsbytes
