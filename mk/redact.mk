# pkg/redact: secret detection and redaction profiles. Its unit tests run in
# test-unit; this target checks the js/wasm build and runs the detector's
# fuzz target briefly on top of its committed seed corpus
# (pkg/redact/testdata/fuzz/FuzzScan).
.PHONY: test-redact

test-redact: ## pkg/redact's js/wasm build and its detector's fuzz target
	GOOS=js GOARCH=wasm $(GO) build ./pkg/redact/...
	$(FUZZ) -fuzz '^FuzzScan$$' ./pkg/redact
