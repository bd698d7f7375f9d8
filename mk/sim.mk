# pkg/body/sim: the simulator body. Its unit tests run in test-unit; this
# target runs them again compiled to WebAssembly under Node, where the state
# hashes must match the same golden file (pkg/body/sim/testdata/hashes.golden),
# and runs its fuzz targets briefly on top of their seeds.
.PHONY: test-sim test-sim-fuzz

SIM_WASM_PKGS := ./pkg/body/sim/

test-sim: node test-sim-fuzz ## the simulator as js/wasm (the same state hashes) and its fuzz targets
	$(WASM_TEST) -count=1 $(SIM_WASM_PKGS)

test-sim-fuzz: ## the simulator's fuzz targets on FUZZRUNS inputs beyond their seeds
	$(FUZZ) -fuzz '^FuzzShellExec$$' ./pkg/body/sim
	$(FUZZ) -fuzz '^FuzzNew$$' ./pkg/body/sim
