//go:build js && wasm

// Package workerenv is what a Go Worker (syumai/workers) reads from its
// Cloudflare environment: its vars and secrets, its bindings, and its
// rate-limiting bindings' answers. Both of the workbench's Worker
// programs use it (proxy/ and proxy/registry/), so that every /api/
// request is counted and configured the same way.
package workerenv

import (
	"fmt"
	"net/http"
	"strings"
	"syscall/js"

	"github.com/syumai/workers/cloudflare"
)

// Var returns the Worker var or secret name, or "" when it is not set.
func Var(name string) string {
	v := cloudflare.GetBinding(name)
	if v.IsUndefined() || v.IsNull() {
		return ""
	}
	return v.String()
}

// Bound reports whether the Worker has a binding (a bucket, a database, a
// rate limiter) named name.
func Bound(name string) bool {
	v := cloudflare.GetBinding(name)
	return !v.IsUndefined() && !v.IsNull()
}

// Fetcher returns what cloudflare/fetch's client can send requests
// through to reach the Worker behind the service binding named name: an
// object whose fetch is the binding's, bound to it (the bridge calls fetch
// without a receiver, which a binding's own method refuses). A missing
// binding, or one that is not a service (a var, a bucket), is an error.
func Fetcher(name string) (js.Value, error) {
	b := cloudflare.GetBinding(name)
	if b.Type() != js.TypeObject {
		return js.Undefined(), fmt.Errorf("the Worker has no service binding %s", name)
	}
	f := b.Get("fetch")
	if f.Type() != js.TypeFunction {
		return js.Undefined(), fmt.Errorf("the Worker's binding %s is not a service binding (it has no fetch)", name)
	}
	o := js.Global().Get("Object").New()
	o.Set("fetch", f.Call("bind", b))
	return o, nil
}

// Limit counts one request against key with the rate-limiting binding
// named binding and reports whether it is within key's budget. A missing
// binding, or a limiter that fails, is an error: callers fail closed.
func Limit(binding, key string) (bool, error) {
	rl := cloudflare.GetBinding(binding)
	if rl.IsUndefined() || rl.IsNull() {
		return false, fmt.Errorf("no binding %s", binding)
	}
	opts := js.Global().Get("Object").New()
	opts.Set("key", key)
	type result struct {
		ok  bool
		err error
	}
	done := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{ok: len(args) > 0 && args[0].Get("success").Truthy()}
		return nil
	})
	defer then.Release()
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "rejected"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		done <- result{err: fmt.Errorf("%s.limit: %s", binding, msg)}
		return nil
	})
	defer catch.Release()
	rl.Call("limit", opts).Call("then", then, catch)
	res := <-done
	return res.ok, res.err
}

// Client is the client a request is counted for: CF-Connecting-IP, which
// Cloudflare sets (and wrangler dev too). Requests without one share one
// budget.
func Client(r *http.Request) string {
	if key := r.Header.Get("Cf-Connecting-Ip"); key != "" {
		return key
	}
	return "no-client-address"
}

// Unfold undoes syumai/workers' splitting of header values on ",": the
// Fetch API hands over one string per header name (repeated lines already
// folded with ", "), and the bridge splits it. Joining with "," restores
// exactly the string the runtime had, so a value is forwarded byte for
// byte and a folded duplicate is seen as what it is.
func Unfold(h http.Header) {
	for k, v := range h {
		if len(v) > 1 {
			h[k] = []string{strings.Join(v, ",")}
		}
	}
}
