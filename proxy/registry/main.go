//go:build js && wasm

// Command registry is the skill registry's Worker program: the Worker's
// entry module (proxy/index.mjs) sends it every request under
// /api/registry/, and it serves them with package registry/server over
// the Worker's bindings:
//
//	REGISTRY_BUCKET  R2 bucket, the bundles' bytes under their content hashes
//	REGISTRY_DB      D1 database, the index (migrations/*.sql)
//	REGISTRY_RL      rate-limiting binding, the writes of one client address
//	                 and of one signing key (server.WriteLimit per WritePeriod)
//	RL               the rate-limiting binding every /api/ request counts
//	                 against first, as in the proxy's program
//	ALLOWED_ORIGIN   as for the proxy: unset is the same-origin default
//
// Without REGISTRY_BUCKET or REGISTRY_DB the deployment has no registry,
// and every request is answered 501 registry_unavailable, saying which is
// missing. It is a program of its own because it links the verifier,
// whose packages take CPU to start on every request
// (docs/registry.md, "Two Worker programs").
package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/syumai/workers"

	"workbench/pkg/proxy"
	"workbench/pkg/registry/d1index"
	"workbench/pkg/registry/r2bucket"
	"workbench/pkg/registry/server"
	"workbench/pkg/verify"
	"workbench/pkg/workerenv"
)

// The registry's bindings (wrangler.toml).
const (
	bucketBinding  = "REGISTRY_BUCKET"
	dbBinding      = "REGISTRY_DB"
	writeRLBinding = "REGISTRY_RL"
)

func main() {
	workers.Serve(http.HandlerFunc(serve))
}

func serve(w http.ResponseWriter, r *http.Request) {
	workerenv.Unfold(r.Header)
	if ok, err := workerenv.Limit("RL", workerenv.Client(r)); err != nil {
		fmt.Printf("rate limit: %v\n", err)
		proxy.WriteError(w, &proxy.Error{Status: http.StatusInternalServerError, Code: proxy.CodeMisconfigured,
			Message: "the Worker's rate-limiting binding RL is missing or failed; the Worker's log says how"})
		return
	} else if !ok {
		proxy.WriteRateLimited(w, proxy.RateLimit, proxy.RatePeriod, proxy.RatePeriod)
		return
	}
	h, err := server.New(config())
	if err != nil {
		fmt.Printf("registry misconfigured: %v\n", err)
		proxy.WriteError(w, &proxy.Error{Status: http.StatusInternalServerError, Code: proxy.CodeMisconfigured,
			Message: "the registry's Worker settings are wrong: " + err.Error()})
		return
	}
	h.ServeHTTP(w, r)
}

// config is the handler's configuration from the Worker's bindings.
func config() server.Config {
	cfg := server.Config{
		AllowedOrigin: workerenv.Var("ALLOWED_ORIGIN"),
		Verifier:      verify.Standard,
		Limit: func(_ context.Context, key string) (bool, error) {
			return workerenv.Limit(writeRLBinding, key)
		},
		Client: workerenv.Client,
		Log:    logEvent,
	}
	var missing []string
	for _, b := range []string{bucketBinding, dbBinding} {
		if !workerenv.Bound(b) {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		cfg.Unavailable = "its Worker has no " + strings.Join(missing, " and no ") + " binding (docs/registry.md, \"Deploying\")"
		return cfg
	}
	idx, err := d1index.Open(dbBinding)
	if err != nil {
		cfg.Unavailable = err.Error()
		return cfg
	}
	bucket, err := r2bucket.Open(bucketBinding)
	if err != nil {
		cfg.Unavailable = err.Error()
		return cfg
	}
	cfg.Index, cfg.Bucket = idx, bucket
	return cfg
}

// logEvent writes one line per request; server.Event holds no body, query
// or header value.
func logEvent(e server.Event) {
	fmt.Printf("registry method=%s route=%q status=%d code=%q duration=%s\n", e.Method, e.Route, e.Status, e.Code, e.Duration)
}
