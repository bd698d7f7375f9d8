# The browser app (app/): compiled to WebAssembly, then written out as the
# deployable static site by the app's own native half (app/site.go), which
# also removes go-app's service worker, writes _headers and fails the build
# on anything that must not ship (docs/app.md).
#
#   make build   build/site: pages, web/app.wasm, CSS, icons, _headers,
#                _redirects, and brotli/gzip copies for workbench serve
#   make run     build, then `workbench serve` on http://127.0.0.1:8000
#   make build BROTLI=11
#                the brotli copies at quality 11, made by Debian's brotli
#                command (installed when missing): app.wasm ≈ 15 % smaller
#                on the wire than quality 7, for ≈ 50 s of CPU per new
#                module, so not the default (docs/perf/network.md); each
#                copy is kept under .cache/brotli11 by its source's SHA-256

APP_WASM := build/app.wasm

.PHONY: build
build:
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(APP_WASM) ./app
	$(GO) run ./app -out $(SITE_DIR) -wasm $(APP_WASM) -web static/web
ifeq ($(BROTLI),11)
	@command -v brotli >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq brotli; }
	@mkdir -p .cache/brotli11 && find $(SITE_DIR) -name '*.br' | while read -r br; do \
		src="$${br%.br}"; key=".cache/brotli11/$$(sha256sum "$$src" | cut -c1-64).br"; \
		[ -f "$$key" ] || { brotli -q 11 -w 24 -f -o "$$key.tmp" "$$src" && mv "$$key.tmp" "$$key"; } || exit 1; \
		if [ "$$(stat -c%s "$$key")" -lt "$$(stat -c%s "$$br")" ]; then cp "$$key" "$$br"; fi; \
		echo "brotli 11: $$src: $$(stat -c%s "$$br") bytes"; \
	done
endif

# app.wasm's size as served: raw, gzip -9 and brotli q11 (node's zlib).
.PHONY: app-size
app-size: build
	@node -e 'const z=require("zlib"),fs=require("fs");const b=fs.readFileSync(process.argv[1]);const g=z.gzipSync(b,{level:9}).length,br=z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11,[z.constants.BROTLI_PARAM_SIZE_HINT]:b.length}}).length;const mb=(n)=>(n/1048576).toFixed(2)+" MiB";console.log("app.wasm: raw "+mb(b.length)+", gzip "+mb(g)+", brotli "+mb(br))' $(SITE_DIR)/web/app.wasm
