# pkg/body/sim: the simulator body. Its unit tests run in test-unit; this
# layer runs them again compiled to WebAssembly under Node, where the state
# hashes must match the same golden file (pkg/body/sim/testdata/hashes.golden),
# and runs its fuzz targets briefly on top of their seeds.
.PHONY: test-sim
TEST_LAYERS += test-sim


test-sim:
	@command -v node >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq nodejs; }
	PATH="$$($(GO) env GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./pkg/body/sim/
	$(FUZZ) -fuzz '^FuzzShellExec$$' ./pkg/body/sim
	$(FUZZ) -fuzz '^FuzzNew$$' ./pkg/body/sim
