# The browser half of canonical hashing: package canonjson compiled to
# WebAssembly, run in headless Chromium next to the JavaScript canonicalize
# package (cmd/benchbrowser).
#
#   make test-browser-canon   wasm and JS give byte-identical output (a test layer)
#   make bench-browser        MB/s of both on a ~11 MB bundle (a benchmark, not a test)

CHROMIUM      ?= /usr/bin/chromium
BROWSER_RUNS  ?= 15
.PHONY: chromium bench-browser test-browser-canon

# Debian's Chromium, installed only when missing.
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi

test-browser-canon: chromium node-deps
	$(GO) run ./cmd/benchbrowser -check -chromium $(CHROMIUM)

bench-browser: chromium node-deps
	$(GO) run ./cmd/benchbrowser -runs $(BROWSER_RUNS) -chromium $(CHROMIUM)

LAYER_WASM += test-browser-canon
