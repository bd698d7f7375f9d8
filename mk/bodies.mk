# The browser and host bodies: pkg/body/mcpbody (a body over an MCP
# server), pkg/body/localbody (the two this machine runs: Playwright MCP
# on Debian's Chromium, the reference filesystem server behind its
# go-sdk bridge) and the commands that own them. Their unit tests run in
# test-unit; this target runs them against the real servers, which it
# installs (docs/bodies.md).
#
#   make test-bodies   (interop layer) js/wasm build; demonstrate → seal →
#                      replay through both bodies, normalization and outage
#                      tests; teach and replay --body on Playwright MCP; the
#                      bodies started, restarted, given up and ended with
#                      nothing left (the owner stopped or SIGKILLed); serve
#                      and bodies reached through the relay and the pairing
#                      server
#   make bodies ORIGIN=https://<the workbench's origin> [PORT=8790]
#                      installs the npm packages and Chromium when they are
#                      missing, then runs `workbench bodies` for the page
#                      at ORIGIN (docs/app-bodies.md)

# ORIGIN (required) and PORT are given on the command line.
ORIGIN ?=

.PHONY: test-bodies bodies

test-bodies: node-deps chromium ## the bodies against real Playwright MCP and the filesystem server
	GOOS=js GOARCH=wasm $(GO) build ./pkg/body/mcpbody/... ./pkg/body/localbody/...
	WORKBENCH_BODIES_REQUIRED=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -tags bodies -timeout 15m ./pkg/body/mcpbody/... ./pkg/body/localbody/...
	WORKBENCH_BODIES_REQUIRED=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -tags bodies -timeout 10m -run 'OnBrowserBody|LocalBodies' ./cmd/workbench/

bodies: node-deps chromium ## the browser and host bodies for a deployed page: ORIGIN=https://… [PORT=8790]
	@if [ -z "$(ORIGIN)" ]; then \
		echo "usage: make bodies ORIGIN=https://<the workbench's origin> [PORT=8790]"; exit 2; fi
	CHROMIUM=$(CHROMIUM) $(GO) run ./cmd/workbench bodies --allow-origin $(ORIGIN) --addr 127.0.0.1:$(or $(PORT),8790) $(ARGS)
