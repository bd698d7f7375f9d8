package proxy_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

// mcpNative is the relay, with its native Doer, on a loopback server in
// front of the recorder and two real MCP servers (SSE and JSON responses).
type mcpNative struct {
	proxytest.MCPTarget
	sse, json *proxytest.MCPServer
}

func startMCPNative(t testing.TB, log func(proxy.MCPEvent)) mcpNative {
	rec := proxytest.NewMCPUpstream(t)
	sse, js := proxytest.NewMCPServer(t, false), proxytest.NewMCPServer(t, true)
	servers, err := proxy.ParseMCPServers(rec.Entries() + " everything-sse=" + sse.URL + "\neverything-json=" + js.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	m, err := proxy.NewMCPRelay(proxy.MCPConfig{AllowedOrigin: origin, Servers: servers,
		AuthorizationFor: []string{proxytest.MCPRecorderAuth}, Doer: proxy.NewHTTPDoer(), Log: log,
		BodyTimeout: testTimeouts.Body, HeaderTimeout: testTimeouts.Header, IdleTimeout: testTimeouts.Idle})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = proxy.CloseAfterChunked(m)
	srv.Start()
	t.Cleanup(srv.Close)
	return mcpNative{
		MCPTarget: proxytest.MCPTarget{
			Addr: strings.TrimPrefix(srv.URL, "http://"), Origin: origin, Layer: proxytest.Native, Recorder: rec,
			Names:            m.Names(),
			TransportHeaders: []string{"Content-Length", "Accept-Encoding"},
		},
		sse: sse, json: js,
	}
}

func TestNativeMCPAttacks(t *testing.T) { proxytest.RunMCPAttacks(t, startMCPNative(t, nil).MCPTarget) }

func TestNativeMCPForwarding(t *testing.T) {
	proxytest.RunMCPForwarding(t, startMCPNative(t, nil).MCPTarget)
}

func TestNativeMCPSSE(t *testing.T) { proxytest.RunMCPSSE(t, startMCPNative(t, nil).MCPTarget) }

func TestNativeMCPSession(t *testing.T) {
	n := startMCPNative(t, nil)
	t.Run("sse", func(t *testing.T) { proxytest.RunMCPSession(t, n.MCPTarget, "everything-sse", n.sse) })
	t.Run("json", func(t *testing.T) { proxytest.RunMCPSession(t, n.MCPTarget, "everything-json", n.json) })
}

func TestNativeMCPEdge(t *testing.T) { proxytest.RunMCPEdge(t, startMCPNative(t, nil).MCPTarget) }

func TestNativeMCPTimeouts(t *testing.T) {
	t.Parallel() // as TestNativeTimeouts
	proxytest.RunMCPTimeouts(t, startMCPNative(t, nil).MCPTarget, testTimeouts)
}
