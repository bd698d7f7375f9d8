# pkg/capability, pkg/capability/httpapi, pkg/runs: the capability
# palette's engine. Their native tests run in test-unit; this target adds
# the interop test against the reference TypeScript MCP server
# (server-everything, from node_modules, which it installs) and runs the
# tests again compiled to WebAssembly under Node (Go's in-memory network
# there, so the HTTP contract client talks to the conformance server).
#
#   make test-capability    interop with server-everything (the interop
#                           layer runs that part); tests as js/wasm (the
#                           wasm layer runs those, test-wasm-node)
#   make bench-capability   catalog filtering per keystroke, 500 capabilities
.PHONY: test-capability test-capability-interop bench-capability

CAPABILITY_WASM_PKGS := ./pkg/runs ./pkg/capability/...

test-capability: node test-capability-interop ## the palette's engine against server-everything; its tests as js/wasm
	$(WASM_TEST) -count=1 $(CAPABILITY_WASM_PKGS)

test-capability-interop: node-deps ## the palette's engine against server-everything
	WORKBENCH_MCP_INTEROP_REQUIRED=1 $(GO) test -count=1 -tags interop -run Everything ./pkg/capability

bench-capability: ## catalog filtering per keystroke, 500 capabilities
	$(GO) test -run '^$$' -bench 'Filter|Index' -benchmem -count 6 ./pkg/capability
	$(WASM_TEST) -run '^$$' -bench 'Filter' -benchmem -count 3 ./pkg/capability
