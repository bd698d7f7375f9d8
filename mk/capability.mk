# pkg/capability, pkg/capability/httpapi, pkg/runs: the capability
# palette's engine. Their native tests run in test-unit; this target adds
# the interop test against the reference TypeScript MCP server
# (server-everything, from node_modules, which it installs) and runs the
# tests again compiled to WebAssembly under Node (Go's in-memory network
# there, so the HTTP contract client talks to the conformance server).
#
#   make test-capability    (interop layer) interop with server-everything; tests as js/wasm
#   make bench-capability   catalog filtering per keystroke, 500 capabilities
.PHONY: test-capability bench-capability

test-capability: node-deps ## the palette's engine against server-everything; its tests as js/wasm
	WORKBENCH_MCP_INTEROP_REQUIRED=1 $(GO) test -count=1 -tags interop -run Everything ./pkg/capability
	$(WASM_TEST) -count=1 ./pkg/runs ./pkg/capability/...

bench-capability: ## catalog filtering per keystroke, 500 capabilities
	$(GO) test -run '^$$' -bench 'Filter|Index' -benchmem -count 6 ./pkg/capability
	$(WASM_TEST) -run '^$$' -bench 'Filter' -benchmem -count 3 ./pkg/capability
