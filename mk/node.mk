# The project's npm packages (wrangler, canonicalize, …), installed into
# node_modules/ with `npm ci` only when missing or stale. npm's own record
# of the install (node_modules/.package-lock.json) is the stamp.

NPM_RECORD := node_modules/.package-lock.json

.PHONY: node-deps
node-deps:
	@if [ $(NPM_RECORD) -nt package-lock.json ] && [ $(NPM_RECORD) -nt package.json ]; then :; else \
		echo "npm ci"; npm ci --no-audit --no-fund && touch $(NPM_RECORD); fi
