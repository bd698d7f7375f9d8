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

	req := httptest.NewRequest("POST", "https://workbench.example.org"+proxy.MountPath+"chat/completions", strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Authorization", "Bearer sk-or-v1-abc")
	req.Header.Set("Content-Type", "application/json")
	rr := httptest.NewRecorder()
	mux.ServeHTTP(rr, req)
	fmt.Println(rr.Code, rr.Body.String())
	// Output:
	// 403 {"error":{"code":"origin_forbidden","message":"Origin \"https://evil.example\" is refused; only the workbench at https://workbench.example.org may use this proxy"}}
}

// A host builds one MCPRelay from the allowlist and mounts it at
// MCPMountPath. The page asks for servers by name; a name that is not
// configured is refused without naming the ones that are.
func ExampleNewMCPRelay() {
	servers, err := proxy.ParseMCPServers("browser=http://127.0.0.1:8931/mcp, shell=https://mcp.example.net/shell")
	if err != nil {
		fmt.Println(err)
		return
	}
	relay, err := proxy.NewMCPRelay(proxy.MCPConfig{
		AllowedOrigin: "https://workbench.example.org",
		Servers:       servers,
		Doer:          proxy.NewHTTPDoer(), // in a Worker: the runtime's fetch
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle(proxy.MCPMountPath, relay)

	for _, path := range []string{proxy.MCPMountPath, proxy.MCPMountPath + "files"} {
		req := httptest.NewRequest("GET", "https://workbench.example.org"+path, nil)
		req.Header.Set("Origin", "https://workbench.example.org")
		rr := httptest.NewRecorder()
		mux.ServeHTTP(rr, req)
		fmt.Print(rr.Code, " ", rr.Body.String())
	}
	// Output:
	// 200 {"servers":[{"name":"browser"},{"name":"shell"}]}
	// 404 {"error":{"code":"mcp_server_unknown","message":"no MCP server named \"files\" is configured"}}
}
