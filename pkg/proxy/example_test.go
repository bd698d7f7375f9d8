package proxy_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"workbench/pkg/proxy"
)

// A host builds one Handler from a Config and mounts it at MountPath. Here
// a page on another site tries to use the proxy: it is refused before any
// upstream round trip.
func ExampleNew() {
	h, err := proxy.New(proxy.Config{
		AllowedOrigin: "https://workbench.example.org",
		Doer:          proxy.NewHTTPDoer(), // in a Worker: the runtime's fetch
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle(proxy.MountPath, h)

	req := httptest.NewRequest("POST", proxy.MountPath+"chat/completions", strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Authorization", "Bearer sk-or-v1-abc")
	req.Header.Set("Content-Type", "application/json")
	rr := httptest.NewRecorder()
	mux.ServeHTTP(rr, req)
	fmt.Println(rr.Code, rr.Body.String())
	// Output:
	// 403 {"error":{"code":"origin_forbidden","message":"Origin \"https://evil.example\" is refused; only the workbench at https://workbench.example.org may use this proxy"}}
}
