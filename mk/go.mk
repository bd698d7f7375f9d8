# The Go module's own checks, run natively: formatting, vet, the unit tests
# of every package, the fuzz targets, the benchmarks, and the spec §8.2
# fixture files the workbench writes itself.

.PHONY: fmt-check vet test-unit test-fuzz bench fixtures

fmt-check: ## files gofmt would change
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The bodies and interop tags only add test files (no file asks for their
# absence), so vetting with both vets every file a plain `go vet ./...` would,
# once; `go test ./...` compiles the untagged set.
vet: ## go vet, natively (every file, the bodies and interop tests included) and of pkg/ as js/wasm
	$(GO) vet -tags bodies,interop ./...
	GOOS=js GOARCH=wasm $(GO) vet ./pkg/...

# TestBrotliProgramMatchesPort (7 s of one core) is left to
# `make check-app-size`, which runs it with the program required.
test-unit: ## go test ./..., natively
	$(GO) test -count=1 -skip '^TestBrotliProgramMatchesPort$$' ./...

# Targets whose every input compiles or validates a whole schema run a
# tenth of FUZZRUNS.
FUZZ_SHORT = $(GO) test -run '^$$' -fuzztime $$(( $(FUZZRUNS) / 10 ))x -fuzzminimizetime 0s
test-fuzz: ## every fuzz target on FUZZRUNS inputs beyond its seeds
	$(FUZZ) -fuzz '^FuzzParse$$' ./pkg/canonjson
	$(FUZZ) -fuzz '^FuzzCanonicalMatchesReference$$' ./pkg/canonjson
	$(FUZZ) -fuzz '^FuzzVerify$$' ./pkg/verify
	$(FUZZ) -fuzz '^FuzzReader$$' ./pkg/sse
	$(FUZZ) -fuzz '^FuzzReadResponse$$' ./pkg/mcp
	$(FUZZ) -fuzz '^FuzzCheckPath$$' ./pkg/proxy
	$(FUZZ) -fuzz '^FuzzCheckMCPPath$$' ./pkg/proxy
	$(FUZZ) -fuzz '^FuzzRawMember$$' ./pkg/store
	$(FUZZ) -fuzz '^FuzzScanPII$$' ./pkg/redact
	$(FUZZ) -fuzz '^FuzzKnownFind$$' ./pkg/redact
	$(FUZZ_SHORT) -fuzz '^FuzzFastPattern$$' ./schemas
	$(FUZZ_SHORT) -fuzz '^FuzzEdgePlan$$' ./schemas
	$(FUZZ_SHORT) -fuzz '^FuzzCompile$$' ./pkg/schemaform

bench: ## every benchmark under pkg/, natively (measurements, not tests)
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/...

# Rewrites the spec §8.2 fixture files from a fresh, deterministic run of
# the workbench (demonstrate, crystallize, replay, redact, verify).
fixtures: ## rewrite the spec §8.2 fixture files from a fresh run
	$(GO) test -count=1 -run '^TestFixtureFiles$$' ./pkg/assemble -args -update
