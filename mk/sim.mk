# pkg/body/sim: the simulator body. Its unit tests run in test-unit; this
# layer runs them again compiled to WebAssembly under Node, where the state
# hashes must match the same golden file (pkg/body/sim/testdata/hashes.golden),
# and runs its fuzz targets briefly on top of their seeds.
.PHONY: test-sim
TEST_LAYERS += test-sim

SIM_FUZZTIME ?= 5s

test-sim:
	@command -v node >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq nodejs; }
	PATH="$$($(GO) env GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./pkg/body/sim/
	$(GO) test -run '^$$' -fuzz '^FuzzShellExec$$' -fuzztime $(SIM_FUZZTIME) ./pkg/body/sim
	$(GO) test -run '^$$' -fuzz '^FuzzNew$$' -fuzztime $(SIM_FUZZTIME) -fuzzminimizetime 50x ./pkg/body/sim
