# pkg/body/mcpbody: the browser and host bodies over MCP. Their unit tests
# (snapshot normalization, reference translation) run in test-unit; this
# layer runs them against real servers it installs: Playwright MCP driving
# Debian's Chromium, and the reference filesystem server (docs/bodies.md).
#
#   make test-bodies   js/wasm build; demonstrate → seal → replay through
#                      both bodies, normalization and outage tests; teach
#                      and replay --body on Playwright MCP

.PHONY: test-bodies

test-bodies: node-deps chromium
	GOOS=js GOARCH=wasm $(GO) build ./pkg/body/mcpbody/...
	WORKBENCH_BODIES_REQUIRED=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -tags bodies -timeout 15m ./pkg/body/mcpbody/...
	WORKBENCH_BODIES_REQUIRED=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -tags bodies -timeout 10m -run 'OnBrowserBody' ./cmd/workbench/

LAYER_INTEROP += test-bodies
