# pkg/mcp: the MCP client over streamable HTTP. Its unit, go-sdk interop
# and fault tests run in test-unit; this target adds the interop test
# against the reference TypeScript server (server-everything, from
# node_modules, which it installs), and runs the unit tests again compiled
# to WebAssembly under Node (Go's in-memory network there; the fetch path
# is exercised in Chromium by bench-mcp-size).
#
#   make test-mcp         interop with server-everything (the interop layer
#                         runs that part); tests as js/wasm (the wasm layer
#                         runs those, test-wasm-node)
#   make bench-mcp        client cost per tools/call vs a raw HTTP POST
#   make bench-mcp-size   wasm size: this client vs go-sdk's client, and both
#                         run in headless Chromium against a go-sdk server
.PHONY: test-mcp test-mcp-interop bench-mcp bench-mcp-size

MCP_WASM_PKGS := ./pkg/mcp/... ./pkg/sse

test-mcp: node test-mcp-interop ## the MCP client against server-everything; its tests as js/wasm
	$(WASM_TEST) -count=1 $(MCP_WASM_PKGS)

test-mcp-interop: node-deps ## the MCP client against server-everything
	WORKBENCH_MCP_INTEROP_REQUIRED=1 $(GO) test -count=1 -tags interop ./pkg/mcp/...

bench-mcp: ## the MCP client's cost per tools/call against a raw HTTP POST
	$(GO) test -run '^$$' -bench 'CallTool' -benchmem -count 6 ./pkg/mcp

bench-mcp-size: chromium ## the MCP client's wasm size against go-sdk's, both run in Chromium
	$(GO) run ./cmd/mcpsize -browser -chromium $(CHROMIUM)
