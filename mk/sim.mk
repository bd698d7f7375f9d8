# pkg/body/sim: the simulator body. Its unit tests run in test-unit; this
# layer runs them again compiled to WebAssembly under Node, where the state
# hashes must match the same golden file (pkg/body/sim/testdata/hashes.golden),
# and runs its fuzz targets briefly on top of their seeds.
.PHONY: test-sim
LAYER_WASM += test-sim


test-sim: node
	$(WASM_TEST) -count=1 ./pkg/body/sim/
	$(FUZZ) -fuzz '^FuzzShellExec$$' ./pkg/body/sim
	$(FUZZ) -fuzz '^FuzzNew$$' ./pkg/body/sim
