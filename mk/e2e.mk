# End-to-end tests (e2e/): the built site under `workbench serve`, driven
# in headless Chromium with chromedp; OpenRouter is the openroutertest
# stand-in behind serve's loopback upstream override. node-deps brings
# axe-core and Playwright MCP (the browser body of e2e/mcp_test.go, on the
# same Debian Chromium), so the layer requires them.
.PHONY: test-e2e
TEST_LAYERS += test-e2e

test-e2e: chromium node-deps build
	WORKBENCH_E2E=1 WORKBENCH_BODIES_REQUIRED=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -timeout 45m ./e2e/

# Screenshots of the routes, written by the e2e run to docs/screenshots/.
.PHONY: screenshots
screenshots: chromium build
	WORKBENCH_E2E=1 WORKBENCH_SCREENSHOTS=$(abspath docs/screenshots) CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -run '^TestScreenshots$$' ./e2e/

# The browser app's speed goals in real Chromium (benchmarks, not tests):
# cold load to interactive, importing a 10 MB bundle, /skills with 1,000
# skills; and app.wasm's compressed size.
.PHONY: bench-app
bench-app: chromium app-size
	WORKBENCH_E2E=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -run '^$$' -bench . -benchtime 3x -timeout 30m ./e2e/
