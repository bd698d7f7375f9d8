# The edge proxy: the Go Cloudflare Worker (proxy/, pkg/proxy), its
# wrangler toolchain, deployment and the workerd test layer.

WORKER_DIR    := build/worker
WORKER_WASM   := $(WORKER_DIR)/app.wasm
WRANGLER      := node_modules/.bin/wrangler
# Everything either Go program may compile or embed: the registry's links
# the verifier, its schemas and fixtures.
WORKER_GO_SRC := $(shell find proxy pkg schemas fixtures -type f \( -name '*.go' -o -name '*.json' \) ! -name '*_test.go' ! -path '*/testdata/*') \
	proxy/index.mjs go.mod go.sum
REGISTRY_WASM := $(WORKER_DIR)/registry/app.wasm

.PHONY: worker deploy deploy-browser deploy-pages pages pages-project test-worker bench-worker site-placeholder

# The Worker: two Go programs as wasm, each with syumai/workers' JS glue —
# the proxy and relay (proxy/) in build/worker, the registry
# (proxy/registry) in build/worker/registry — and the entry module that
# sends /api/registry/ to the second (proxy/index.mjs, build/worker/index.mjs;
# docs/registry.md, "Two Worker programs"). workers-assets-gen empties the
# directory it writes, so the proxy's glue is written first.
worker: $(WORKER_WASM) ## the Go Worker (proxy and registry) in build/worker
$(WORKER_WASM): $(WORKER_GO_SRC)
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER_DIR)
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER_DIR)/registry
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(REGISTRY_WASM) ./proxy/registry
	cp proxy/index.mjs $(WORKER_DIR)/index.mjs
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $@ ./proxy

# wrangler needs the assets directory to exist. The site build owns
# build/site; until it has run, a placeholder page stands in (never
# overwriting a built site, never committed).
site-placeholder: ## a placeholder page in build/site until the site is built
	@if [ ! -e $(SITE_DIR)/index.html ]; then \
		mkdir -p $(SITE_DIR) && \
		printf '<!doctype html>\n<meta charset="utf-8">\n<title>Skill Workbench</title>\n<p>Placeholder: the site has not been built.</p>\n' > $(SITE_DIR)/index.html; \
	fi

# make deploy [ALLOWED_ORIGIN=https://workbench.example.org] \
#   [MCP_SERVERS='browser=https://mcp.example.net/mcp,…'] [MCP_FORWARD_AUTHORIZATION='browser']
# is `wrangler deploy` (whose [build] builds the Worker and the site) with
# these vars. Without ALLOWED_ORIGIN the Worker serves its workers.dev
# name (the same-origin default); a custom domain needs it. The relay's
# vars are docs/proxy.md "MCP relay"; a server's credential is a secret
# (docs/deploy.md). wrangler needs Cloudflare credentials: `npx wrangler
# login`, or CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID in the
# environment. No test can run a real deployment here; TestDeployFromClone
# runs `wrangler deploy --dry-run` in a copy without build/.
# Then the registry's index gets the tables migrations/ makes, once per
# deployment and again after an upgrade that adds one (wrangler applies
# each migration once; docs/registry.md, "Deploying").
#
# make deploy BROWSER_BODY=1 [the vars above] deploys the browser body
# first (deploy-browser: proxy/browser, Playwright MCP over Browser
# Rendering), then the Worker from a copy of wrangler.toml with the
# service binding BROWSER_MCP to it (proxy/browser/binding.toml) and
# "browser=binding:BROWSER_MCP/mcp" added to MCP_SERVERS: the relay's
# "browser" then needs no public URL. A Worker cannot be deployed with a
# binding to a Worker that does not exist, so the binding is not in
# wrangler.toml itself. docs/deploy.md says what of this is tested.
BROWSER_CONFIG  := proxy/browser/wrangler.toml
BROWSER_BINDING := proxy/browser/binding.toml
BROWSER_ENTRY   := browser=binding:BROWSER_MCP/mcp
BOUND_CONFIG    := build/deploy-bound/wrangler.toml
DEPLOY_MCP_SERVERS = $(strip $(if $(BROWSER_BODY),$(BROWSER_ENTRY)) $(MCP_SERVERS))
DEPLOY_VARS = $(strip $(foreach v,ALLOWED_ORIGIN MCP_FORWARD_AUTHORIZATION MCP_ALLOW_HTTP,$(if $($(v)),--var '$(v):$($(v))')) \
	$(if $(DEPLOY_MCP_SERVERS),--var 'MCP_SERVERS:$(DEPLOY_MCP_SERVERS)'))
deploy: node-deps $(if $(BROWSER_BODY),deploy-browser $(BOUND_CONFIG)) ## wrangler deploy of the Worker and the site (ALLOWED_ORIGIN=, MCP_SERVERS=, BROWSER_BODY=1, …), then the registry's migrations
	WRANGLER_SEND_METRICS=false $(WRANGLER) deploy $(if $(BROWSER_BODY),--config $(BOUND_CONFIG)) $(DEPLOY_VARS)
	WRANGLER_SEND_METRICS=false $(WRANGLER) d1 migrations apply REGISTRY_DB --remote

# The browser body: a Worker of its own (proxy/browser/index.js, a few
# lines over the npm package @cloudflare/playwright-mcp), with the
# Browser Rendering binding and a Durable Object per MCP session. It has
# no public URL: the Worker reaches it through its service binding.
deploy-browser: node-deps ## deploy the browser body (proxy/browser) on its own; make deploy BROWSER_BODY=1 runs it first
	WRANGLER_SEND_METRICS=false $(WRANGLER) deploy --config $(BROWSER_CONFIG)

# wrangler.toml with the browser body's service binding, in build/ with
# its paths made absolute (wrangler resolves them from the file's
# directory) and its [build] run at the repository root.
$(BOUND_CONFIG): wrangler.toml $(BROWSER_BINDING)
	@mkdir -p $(@D)
	sed -e 's|^main = "|main = "$(CURDIR)/|' -e 's|^directory = "|directory = "$(CURDIR)/|' \
		-e 's|^migrations_dir = "|migrations_dir = "$(CURDIR)/|' -e 's|^\[build\]$$|[build]\ncwd = "$(CURDIR)"|' \
		-e '/^watch_dir = /d' wrangler.toml > $@
	cat $(BROWSER_BINDING) >> $@

# The same site as a Cloudflare Pages project in advanced mode (the Go
# Worker as _worker.js, cmd/pagesite) in build/pages: its wrangler.toml
# and the site in build/pages/site. A Pages project cannot declare the
# rate-limiting binding, so its RL is a service binding to the limiter
# Worker (proxy/limiter), which holds one; the same vars as `make deploy`
# go into its wrangler.toml. TestPagesDev runs it under `wrangler pages
# dev` beside the limiter under `wrangler dev`.
PAGES_DIR      := build/pages
PAGES_PROJECT  ?= skill-workbench
PAGES_BRANCH   ?= main
LIMITER_CONFIG := proxy/limiter/wrangler.toml
COMPAT_DATE     = $(shell sed -n 's/^compatibility_date = "\(.*\)"$$/\1/p' wrangler.toml)
PAGES_VARS      = $(foreach v,ALLOWED_ORIGIN MCP_SERVERS MCP_FORWARD_AUTHORIZATION MCP_ALLOW_HTTP,$(if $($(v)),-var '$(v)=$($(v))'))
pages: worker build ## the site as a Cloudflare Pages project in build/pages
	$(GO) run ./cmd/pagesite -site $(SITE_DIR) -worker $(WORKER_DIR) -out $(PAGES_DIR) \
		-name $(PAGES_PROJECT) -compatibility-date $(COMPAT_DATE) $(PAGES_VARS)

# make deploy-pages [the vars of make deploy]: the limiter Worker first
# (the Pages project's RL binding names it), then the Pages project, as
# the production deployment of branch PAGES_BRANCH. The project must
# exist: `make pages-project` creates it once. Neither step can run here
# (no network to Cloudflare); TestPagesDev runs what they deploy.
deploy-pages: node-deps pages ## deploy the limiter Worker, then the Pages project
	WRANGLER_SEND_METRICS=false $(WRANGLER) deploy --config $(LIMITER_CONFIG)
	cd $(PAGES_DIR) && WRANGLER_SEND_METRICS=false $(abspath $(WRANGLER)) pages deploy --branch $(PAGES_BRANCH)

pages-project: node-deps ## create the Pages project once
	WRANGLER_SEND_METRICS=false $(WRANGLER) pages project create $(PAGES_PROJECT) --production-branch $(PAGES_BRANCH)

# The Worker under wrangler dev (real workerd, offline) against a loopback
# upstream: the attack suite over HTTP, header stripping, SSE streaming,
# log capture, SPA fallback, `wrangler deploy --dry-run` and the wasm size;
# the same for the MCP relay, plus MCP sessions with real MCP servers and
# an operator-held header; the same-origin default; the skill registry in
# local R2 and D1 (proxy/registry_test.go); a dry-run deployment from a
# copy of the repository without build/; the Pages project under
# `wrangler pages dev` beside its limiter (proxy/pages_test.go); the relay
# to MCP servers behind service bindings (proxy/binding_test.go); and the
# browser body on Browser Rendering with Debian's Chromium, through the
# relay (proxy/browser_test.go; WORKBENCH_BODIES_REQUIRED: a missing
# Chromium fails it rather than skipping it).
WORKER_TEST_ENV := WORKBENCH_WRANGLER=$(abspath $(WRANGLER)) WORKBENCH_WORKER_WASM=$(abspath $(WORKER_WASM))

test-worker: node-deps chromium worker site-placeholder ## the Worker under wrangler dev: attack tables, relay, registry, deploy dry run, Pages, browser body
	$(WORKER_TEST_ENV) WORKBENCH_BODIES_REQUIRED=1 $(GO) test -count=1 -timeout 30m ./proxy

bench-worker: node-deps worker site-placeholder ## the Worker's added latency under wrangler dev
	$(WORKER_TEST_ENV) $(GO) test -run '^$$' -bench . -benchtime 2000x ./proxy
