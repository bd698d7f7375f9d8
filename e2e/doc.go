// Package e2e holds the workbench's end-to-end tests: the built site
// (make build) served by `workbench serve` on a free loopback port, driven
// in Debian's headless Chromium through chromedp, with OpenRouter replaced
// by package openroutertest behind serve's --openrouter-upstream loopback
// override. Nothing else is stood in for.
//
// Every test's browser is watched for the whole session: a request to any
// origin but the served one, a console error or uncaught exception, a CSP
// violation or a registered service worker fails the test, unless the test
// names the console line it expects (a 401 the test provokes, say).
//
// The tests run only under `make test-e2e` (WORKBENCH_E2E=1), which builds
// the site first; `go test ./...` skips them.
package e2e
