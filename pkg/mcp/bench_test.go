package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"workbench/pkg/mcp"
)

// BenchmarkCallTool measures one tools/call against the in-process go-sdk
// server: through the client ("client"), and as a bare HTTP POST of the
// same JSON-RPC request with the session headers whose body is only read
// ("raw"). The difference is the client's own cost per call; the goal is
// client ≤ 1.2 × raw in JSON mode.
func BenchmarkCallTool(b *testing.B) {
	for _, mode := range []string{"json", "sse"} {
		srv := newSDKServer(b, mode == "json")
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
		c, err := mcp.Dial(context.Background(), srv.URL, &mcp.Options{HTTPClient: hc})
		if err != nil {
			b.Fatal(err)
		}
		args := map[string]any{"text": "x"}
		b.Run(mode+"/client", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.CallTool(context.Background(), "echo", args)
				if err != nil || res.Text() != "x" {
					b.Fatal(res, err)
				}
			}
		})
		b.Run(mode+"/raw", func(b *testing.B) {
			b.ReportAllocs()
			id := 1000
			for b.Loop() {
				id++
				body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"arguments":{"text":"x"},"name":"echo"}}`, id)
				req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", c.SessionID())
				req.Header.Set("MCP-Protocol-Version", mcp.ProtocolVersion)
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				data, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || !bytes.Contains(data, []byte(`"text":"x"`)) {
					b.Fatalf("%d %s %v", resp.StatusCode, data, err)
				}
			}
		})
		c.Close(context.Background())
	}
}

// BenchmarkCallToolCanned isolates the client's cost: the server answers
// every call with the same canned JSON-RPC response, so nearly all the
// time is the HTTP round trip and the client's own work.
func BenchmarkCallToolCanned(b *testing.B) {
	f := newFaultServerB(b, func(w http.ResponseWriter, r *http.Request, m rpc) {
		writeJSON(w, m.ID, `{"content":[{"type":"text","text":"x"}],"structuredContent":{"echoed":"x","length":1}}`)
	})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	c, err := mcp.Dial(context.Background(), f.URL, &mcp.Options{HTTPClient: hc})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(context.Background())
	args := map[string]any{"text": "x"}
	b.Run("client", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := c.CallTool(context.Background(), "echo", args)
			if err != nil || res.Text() != "x" {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		id := 1000
		for b.Loop() {
			id++
			body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"arguments":{"text":"x"},"name":"echo"}}`, id)
			req, _ := http.NewRequest(http.MethodPost, f.URL, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", c.SessionID())
			req.Header.Set("MCP-Protocol-Version", mcp.ProtocolVersion)
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || !bytes.Contains(data, []byte(`"text":"x"`)) {
				b.Fatalf("%d %s %v", resp.StatusCode, data, err)
			}
		}
	})
}

// BenchmarkCallToolInterleaved alternates one client call and one raw POST
// in each iteration and reports both mean times and their ratio, so that
// load from other processes, which drifts over seconds, weighs on both
// alike. The go-sdk server answers in JSON mode.
func BenchmarkCallToolInterleaved(b *testing.B) {
	for _, server := range []string{"gosdk-json", "canned"} {
		b.Run(server, func(b *testing.B) {
			var url string
			if server == "canned" {
				url = newFaultServerB(b, func(w http.ResponseWriter, r *http.Request, m rpc) {
					writeJSON(w, m.ID, `{"content":[{"type":"text","text":"x"}],"structuredContent":{"echoed":"x","length":1}}`)
				}).URL
			} else {
				url = newSDKServer(b, true).URL
			}
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			c, err := mcp.Dial(context.Background(), url, &mcp.Options{HTTPClient: hc})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close(context.Background())
			args := map[string]any{"text": "x"}
			session := c.SessionID()
			var client, raw time.Duration
			id := 1 << 20
			for b.Loop() {
				t0 := time.Now()
				res, err := c.CallTool(context.Background(), "echo", args)
				if err != nil || res.Text() != "x" {
					b.Fatal(res, err)
				}
				t1 := time.Now()
				id++
				body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"arguments":{"text":"x"},"name":"echo"}}`, id)
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("MCP-Protocol-Version", mcp.ProtocolVersion)
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				data, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || !bytes.Contains(data, []byte(`"text":"x"`)) {
					b.Fatalf("%d %s %v", resp.StatusCode, data, err)
				}
				t2 := time.Now()
				client += t1.Sub(t0)
				raw += t2.Sub(t1)
			}
			b.ReportMetric(float64(client.Nanoseconds())/float64(b.N), "client-ns/call")
			b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "raw-ns/call")
			b.ReportMetric(float64(client)/float64(raw), "client/raw")
		})
	}
}
