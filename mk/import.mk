# The import path (pkg/library over pkg/verify, pkg/canonjson, pkg/skill and
# pkg/store): its native tests run in test-unit; this target runs them again
# compiled to WebAssembly under Node, where SHA-256 of large inputs is the
# host's crypto.subtle.digest and is held to crypto/sha256 (docs/perf/app-import.md).
#
#   make test-import-wasm   the import path's tests as js/wasm (the wasm
#                           layer runs them in test-wasm-node)
#   make bench-import       BenchmarkImport of a taught 10 MB bundle, native
#                           and as js/wasm, with CPU time per import; the
#                           SHA-256 comparison by size under js/wasm
.PHONY: test-import-wasm bench-import

IMPORT_PKGS := ./pkg/canonjson/... ./pkg/verify/... ./pkg/store ./pkg/store/mem ./pkg/library/... ./pkg/skill/...

test-import-wasm: node ## the import path's packages as js/wasm under Node.js
	$(WASM_TEST) -count=1 -timeout 20m $(IMPORT_PKGS)

bench-import: node ## a 10 MB import, native and as js/wasm; SHA-256 by size under js/wasm
	$(GO) test -run '^$$' -bench '^BenchmarkImport$$' -benchtime 5x -count 3 ./pkg/library
	$(WASM_TEST) -run '^$$' -bench '^BenchmarkImport$$' -benchtime 3x -count 3 -timeout 30m ./pkg/library
	$(WASM_TEST) -run '^$$' -bench '^BenchmarkSum256$$' -benchtime 20x ./pkg/skill
