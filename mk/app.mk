# The browser app (app/): compiled to WebAssembly, then written out as the
# deployable static site by the app's own native half (app/site.go), which
# also removes go-app's service worker, writes _headers and fails the build
# on anything that must not ship (docs/app.md).
#
#   make build   build/site: pages, web/app.wasm, CSS, icons, _headers
#   make run     build, then `workbench serve` on http://127.0.0.1:8000

APP_WASM := build/app.wasm

.PHONY: build
build:
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(APP_WASM) ./app
	$(GO) run ./app -out $(SITE_DIR) -wasm $(APP_WASM) -web static/web
