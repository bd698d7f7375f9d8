//go:build !js

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

// forwardBinding is the service binding to the test Worker
// proxy/testdata/mcpforward, as wrangler.toml would declare it.
const forwardBinding = `
[[services]]
binding = "FORWARD"
service = "workbench-test-mcp-forward"
`

// boundConfig writes the repository's wrangler.toml (without the
// registry, as the suite's Worker) with services appended: a Worker
// with those service bindings.
func boundConfig(t *testing.T, services string) string {
	t.Helper()
	config := wranglerConfig(t, withoutRegistry())
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(services); err != nil {
		t.Fatal(err)
	}
	return config
}

// TestWorkerdMCPBinding runs a Worker whose MCP servers are reached
// through a service binding (MCP_SERVERS entries binding:FORWARD/<path>),
// not by URL: the binding is to a test Worker under a dev server of its
// own (proxy/testdata/mcpforward), which passes each request on to the
// suite's MCP servers on loopback. Through it, the relay's forwarding
// rules hold as for a URL (only the MCP headers, Authorization only where
// configured, the operator's header), a real MCP session is served, and a
// name not configured is refused without reaching anything. A Worker
// whose MCP_SERVERS names a binding it does not have fails closed.
func TestWorkerdMCPBinding(t *testing.T) {
	d := requireWorker(t)
	bin := os.Getenv("WORKBENCH_WRANGLER")
	devRegistry := t.TempDir()
	routes, err := json.Marshal(map[string]string{
		"/rec": d.rec.URL, "/rec-auth": d.rec.AuthURL, "/everything": d.sse.URL, "/locked": d.tok.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := startRegistered(bin, "proxy/testdata/mcpforward/wrangler.toml", devRegistry, "--var", "ROUTES:"+string(routes))
	if err != nil {
		t.Fatal(err)
	}
	defer fwd.stop()
	w, err := startDevEnv(bin, boundConfig(t, forwardBinding), map[string]string{
		"OPENROUTER_UPSTREAM": d.up.URL,
		"MCP_SERVERS": "rec=binding:FORWARD/rec rec-auth=binding:FORWARD/rec-auth everything=binding:FORWARD/everything " +
			"locked=binding:FORWARD/locked keyed=binding:FORWARD/locked",
		"MCP_FORWARD_AUTHORIZATION": proxytest.MCPRecorderAuth,
	}, map[string]string{proxy.MCPHeaderVar("keyed"): proxytest.MCPOperatorHeader}, true,
		[]string{"WRANGLER_REGISTRY_PATH=" + devRegistry})
	if err != nil {
		t.Fatal(err)
	}
	defer w.stop()
	tg := proxytest.MCPTarget{
		Addr: w.addr, Origin: w.origin, Layer: proxytest.Workerd, Recorder: d.rec,
		Names:            []string{"everything", "keyed", "locked", proxytest.MCPRecorder, proxytest.MCPRecorderAuth},
		TransportHeaders: []string{"Content-Length", "Accept-Encoding", "Transfer-Encoding", "Connection", "Cf-Worker"},
		Settle:           w.settleFront,
	}
	t.Run("forwarding", func(t *testing.T) { proxytest.RunMCPForwarding(t, tg) })
	t.Run("session", func(t *testing.T) { proxytest.RunMCPSession(t, tg, "everything", d.sse) })
	t.Run("operator header", func(t *testing.T) { proxytest.RunMCPOperatorHeader(t, tg, "locked", "keyed", d.tok) })
	t.Run("name not configured", func(t *testing.T) {
		mark := d.rec.Len()
		status, body := relayPost(t, w, "browser")
		if status != 404 || !bytes.Contains(body, []byte(`"`+proxy.CodeMCPUnknown+`"`)) {
			t.Errorf("→ %d %s; want 404 %s", status, body, proxy.CodeMCPUnknown)
		}
		if d.rec.Len() != mark {
			t.Errorf("a name not configured reached an MCP server")
		}
	})

	t.Run("binding missing", func(t *testing.T) {
		// The same Worker without the binding its MCP_SERVERS names.
		bad, err := startDev(bin, map[string]string{
			"OPENROUTER_UPSTREAM": d.up.URL,
			"MCP_SERVERS":         proxytest.MCPRecorder + "=" + d.rec.URL + ",browser=binding:BROWSER_MCP/mcp",
		}, true)
		if err != nil {
			t.Fatal(err)
		}
		defer bad.stop()
		mark := d.rec.Len()
		for _, name := range []string{"browser", proxytest.MCPRecorder} {
			if status, body := relayPost(t, bad, name); status != 500 || !bytes.Contains(body, []byte(`"`+proxy.CodeMisconfigured+`"`)) {
				t.Errorf("POST %s → %d %s; want 500 %s", name, status, body, proxy.CodeMisconfigured)
			}
		}
		if d.rec.Len() != mark {
			t.Errorf("a relay misconfigured reached an MCP server")
		}
		const why = `MCP server "browser": service binding BROWSER_MCP: the Worker has no service binding BROWSER_MCP`
		var out string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if out = bad.logs.String(); strings.Contains(out, why) {
				break
			}
		}
		if !strings.Contains(out, why) {
			t.Errorf("the Worker's log does not say %q:\n%s", why, tail(out, 4<<10))
		}
	})
}

// relayPost POSTs a ping to the relay's server name on w, from w's own
// origin, and returns the answer's status and body.
func relayPost(t *testing.T, w *devServer, name string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", w.origin+proxy.MCPMountPath+name, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Origin", w.origin)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}
