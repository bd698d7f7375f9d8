# Node.js and the project's npm packages (wrangler, canonicalize, …),
# installed into node_modules/ with `npm ci` only when missing or stale.
# npm's own record of the install (node_modules/.package-lock.json) is the
# stamp.

NPM_RECORD := node_modules/.package-lock.json

.PHONY: node-deps node
node-deps: ## the npm packages, installed (npm ci) when missing or stale
	@if [ $(NPM_RECORD) -nt package-lock.json ] && [ $(NPM_RECORD) -nt package.json ]; then :; else \
		echo "npm ci"; npm ci --no-audit --no-fund && touch $(NPM_RECORD); fi

# Node.js runs the Go wasm tests (go_js_wasm_exec, WASM_TEST in the
# Makefile); Debian's, installed only when missing.
node: ## Debian's Node.js, installed when missing
	@command -v node >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq nodejs; }
