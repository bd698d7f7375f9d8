# Debian's Chromium, which every browser test and benchmark runs in, and
# the browser half of canonical hashing: package canonjson compiled to
# WebAssembly, run in headless Chromium next to the JavaScript canonicalize
# package (cmd/benchbrowser).
#
#   make chromium             install Chromium when it is missing
#   make test-browser-canon   (wasm layer) wasm and JS give byte-identical output
#   make bench-browser        MB/s of both on a ~11 MB bundle (a benchmark, not a test)

BROWSER_RUNS  ?= 15
.PHONY: chromium bench-browser test-browser-canon

# Debian's Chromium, installed only when missing.
chromium: ## Debian's Chromium, installed when missing
	@if [ ! -x $(CHROMIUM) ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi

test-browser-canon: chromium node-deps ## canonjson as wasm and the JS canonicalize package agree, in Chromium
	$(GO) run ./cmd/benchbrowser -check -chromium $(CHROMIUM)

bench-browser: chromium node-deps ## canonical hashing MB/s, wasm and JS, in Chromium
	$(GO) run ./cmd/benchbrowser -runs $(BROWSER_RUNS) -chromium $(CHROMIUM)
