package proxy_test

import (
	"testing"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

// BenchmarkAddedLatency measures what the proxy adds to a round trip: each
// iteration calls the loopback upstream once directly and once through the
// handler (served natively, forwarding with NewHTTPDoer), with keep-alive
// connections on both legs as a browser would have. It reports the p50 and
// p99 of both and their difference.
func BenchmarkAddedLatency(b *testing.B) {
	tg := startNative(b, nil)
	body := `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct{ name, method, path, body string }{
		{"GET-key", "GET", "key", ""},
		{"POST-completion", "POST", "chat/completions", body},
	} {
		b.Run(c.name, func(b *testing.B) {
			direct := tg.Upstream.URL + "/" + c.path
			proxied := "http://" + tg.Addr + proxy.MountPath + c.path
			proxytest.MeasureAddedLatency(b, c.method, direct, proxied, tg.Origin, c.body)
		})
	}
}

// BenchmarkMCPAddedLatency is BenchmarkAddedLatency for the MCP relay: a
// JSON-RPC POST to the recording MCP server, directly and through the
// relay.
func BenchmarkMCPAddedLatency(b *testing.B) {
	n := startMCPNative(b, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	proxied := "http://" + n.Addr + proxy.MCPMountPath + proxytest.MCPRecorder
	proxytest.MeasureAddedLatency(b, "POST", n.Recorder.URL, proxied, n.Origin, body)
}
