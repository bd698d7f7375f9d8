package main

// Where the site serves the import worker (package importworker,
// cmd/importer), and how the page learns its version.
const (
	// importerScript is the worker's loader, from static/web: the one
	// script the CSP's worker-src allows.
	importerScript = "/web/importer.js"
	// importerVersionEnv is the go-app environment variable the site build
	// sets to the first 8 bytes of importer.wasm's SHA-256, in hex.
	importerVersionEnv = "IMPORTER_VERSION"
)
