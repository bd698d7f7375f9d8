//go:build !js

package session

// Open returns a memory Storage outside a browser, where there is no
// sessionStorage (the static-site generator renders pages natively).
func Open() (*Storage, error) { return Memory(), nil }
