//go:build wasm

package main

// generate writes the static site; in the browser there is nothing to do
// (and main never gets here: RunWhenOnBrowser does not return).
func generate(*env) {}
