# End-to-end tests (e2e/): the built site under `workbench serve`, driven
# in headless Chromium with chromedp; OpenRouter is the openroutertest
# stand-in behind serve's loopback upstream override. node-deps brings
# axe-core (e2e/a11y_test.go) and Playwright MCP (the browser body of
# e2e/mcp_test.go, on the same Debian Chromium), so the layer requires them.
.PHONY: test-e2e bench-e2e

# The tests run E2E_PARALLEL at a time, each in its own tab (a browser
# context of its own) of one Chromium, with its own `workbench serve`:
# most of a test's time is spent waiting on the page, not on the CPU.
E2E_PARALLEL ?= 4

test-e2e: chromium node-deps build worker ## the built app in Chromium against workbench serve (E2E_PARALLEL at a time)
	WORKBENCH_E2E=1 WORKBENCH_BODIES_REQUIRED=1 WORKBENCH_MCP_INTEROP_REQUIRED=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -parallel $(E2E_PARALLEL) -timeout 45m ./e2e/

# The same speed goals as `make bench-app` (cmd/benchapp), as go test
# benchmarks over the e2e harness: cold load, a 10 MB import, /skills with
# 1,000 skills.
bench-e2e: chromium build ## bench-app's measurements as go test benchmarks over the e2e harness
	WORKBENCH_E2E=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -run '^$$' -bench . -benchtime 3x -timeout 40m ./e2e/
