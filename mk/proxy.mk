# The edge proxy: the Go Cloudflare Worker (proxy/, pkg/proxy), its
# wrangler toolchain, deployment and the workerd test layer.

WORKER_DIR    := build/worker
WORKER_WASM   := $(WORKER_DIR)/app.wasm
SITE_DIR      := build/site
WRANGLER      := node_modules/.bin/wrangler
WORKER_GO_SRC := $(filter-out %_test.go,$(wildcard proxy/*.go pkg/proxy/*.go)) go.mod go.sum

.PHONY: worker deploy test-worker bench-worker node-deps site-placeholder

# The Worker: syumai/workers' JS glue plus the Go program as wasm.
worker: $(WORKER_WASM)
$(WORKER_WASM): $(WORKER_GO_SRC)
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER_DIR)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $@ ./proxy

# wrangler needs the assets directory to exist. The site build owns
# build/site; until it has run, a placeholder page stands in (never
# overwriting a built site, never committed).
site-placeholder:
	@if [ ! -e $(SITE_DIR)/index.html ]; then \
		mkdir -p $(SITE_DIR) && \
		printf '<!doctype html>\n<meta charset="utf-8">\n<title>Skill Workbench</title>\n<p>Placeholder: the site has not been built.</p>\n' > $(SITE_DIR)/index.html; \
	fi

# make deploy ALLOWED_ORIGIN=https://workbench.example.org \
#   [MCP_SERVERS='browser=https://mcp.example.net/mcp,…'] [MCP_FORWARD_AUTHORIZATION='browser']
# (the MCP relay's vars; docs/proxy.md "MCP relay")
# (wrangler needs Cloudflare credentials: `npx wrangler login`, or
# CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID in the environment.)
deploy: node-deps worker site
	@test -n "$(ALLOWED_ORIGIN)" || { echo "deploy: set ALLOWED_ORIGIN=https://<the workbench's origin>"; exit 2; }
	WRANGLER_SEND_METRICS=false $(WRANGLER) deploy --var ALLOWED_ORIGIN:$(ALLOWED_ORIGIN) \
		$(if $(MCP_SERVERS),--var 'MCP_SERVERS:$(MCP_SERVERS)') \
		$(if $(MCP_FORWARD_AUTHORIZATION),--var 'MCP_FORWARD_AUTHORIZATION:$(MCP_FORWARD_AUTHORIZATION)')

# The same site as a Cloudflare Pages project in advanced mode (the Go
# Worker as _worker.js, cmd/pagesite) in build/pages. It is built and run
# under `wrangler pages dev` by TestPagesDev, and not deployed: Pages
# cannot give the Worker its rate-limiting binding RL, so the Worker
# refuses every /api/ request there (docs/decisions.md, "Cloudflare
# Pages"). `make deploy` is the deployment.
PAGES_DIR := build/pages
.PHONY: pages
pages: worker build
	$(GO) run ./cmd/pagesite -site $(SITE_DIR) -worker $(WORKER_DIR) -out $(PAGES_DIR)

# The Worker under wrangler dev (real workerd, offline) against a loopback
# upstream: the attack suite over HTTP, header stripping, SSE streaming,
# log capture, SPA fallback, `wrangler deploy --dry-run` and the wasm size;
# the same for the MCP relay, plus MCP sessions with real MCP servers; and
# the Pages project under `wrangler pages dev` (proxy/pages_test.go).
WORKER_TEST_ENV := WORKBENCH_WRANGLER=$(abspath $(WRANGLER)) WORKBENCH_WORKER_WASM=$(abspath $(WORKER_WASM))

test-worker: node-deps worker site-placeholder
	$(WORKER_TEST_ENV) $(GO) test -count=1 -timeout 30m ./proxy

bench-worker: node-deps worker site-placeholder
	$(WORKER_TEST_ENV) $(GO) test -run '^$$' -bench . -benchtime 2000x ./proxy

LAYER_WORKER += test-worker
