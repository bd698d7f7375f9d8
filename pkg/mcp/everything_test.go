//go:build interop

// Interop with the reference TypeScript server,
// @modelcontextprotocol/server-everything, started from the project's
// node_modules (make test-mcp installs it). Run with
//
//	go test -tags interop ./pkg/mcp
//
// It skips only when node_modules lacks the server, and fails instead
// when WORKBENCH_MCP_INTEROP_REQUIRED is set (make test-mcp sets it).

package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"workbench/pkg/mcp"
	"workbench/pkg/services/servicestest"
)

func TestEverything(t *testing.T) {
	url := servicestest.Everything(t)
	ctx := context.Background()
	c, err := mcp.Dial(ctx, url, &mcp.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	info := c.ServerInfo()
	if info.ProtocolVersion != mcp.ProtocolVersion || info.ServerInfo.Name != "mcp-servers/everything" || c.SessionID() == "" {
		t.Errorf("handshake: %+v, session %q", info, c.SessionID())
	}

	t.Run("tools/list", func(t *testing.T) {
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(tools) < 10 {
			t.Errorf("%d tools", len(tools))
		}
		var echo *mcp.Tool
		for i := range tools {
			if tools[i].Name == "echo" {
				echo = &tools[i]
			}
		}
		if echo == nil {
			t.Fatal("no echo tool")
		}
		a := mcp.BodyTool(*echo, "&body.test").Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("echo annotations %+v", echo.Annotations)
		}
	})

	t.Run("echo", func(t *testing.T) {
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": "héllo"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() != "Echo: héllo" || res.IsError {
			t.Errorf("result %+v", res)
		}
	})

	t.Run("structured content", func(t *testing.T) {
		res, err := c.CallTool(ctx, "get-structured-content", map[string]any{"location": "Chicago"})
		if err != nil {
			t.Fatal(err)
		}
		var w struct {
			Temperature float64
			Conditions  string
			Humidity    float64
		}
		if err := json.Unmarshal(res.StructuredContent, &w); err != nil || w.Temperature != 36 || w.Conditions != "Light rain / drizzle" {
			t.Errorf("structured %s (%v)", res.StructuredContent, err)
		}
	})

	t.Run("image", func(t *testing.T) {
		res, err := c.CallTool(ctx, "get-tiny-image", nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, b := range res.Content {
			found = found || (b.Type == "image" && bytes.Contains(b.Raw, []byte(`"mimeType":"image/png"`)))
		}
		if !found {
			t.Errorf("no PNG image block in %d blocks", len(res.Content))
		}
	})

	t.Run("invalid arguments", func(t *testing.T) {
		res, err := c.CallTool(ctx, "get-structured-content", map[string]any{"location": "Atlantis"})
		var re *mcp.RPCError
		switch {
		case errors.As(err, &re):
			t.Logf("JSON-RPC error %d: %s", re.Code, re.Message)
		case err == nil && res.IsError:
			t.Logf("tool error: %s", res.Text())
		default:
			t.Errorf("invalid arguments: %+v, %v", res, err)
		}
	})

	t.Run("progress", func(t *testing.T) {
		var got []mcp.Progress
		res, err := c.CallTool(ctx, "trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3},
			mcp.WithProgress(func(p mcp.Progress) { got = append(got, p) }))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text(), "Long running operation completed") {
			t.Errorf("result %q", res.Text())
		}
		if len(got) != 3 || got[0].Progress != 1 || got[2].Progress != 3 || got[2].Total != 3 {
			t.Errorf("progress %+v", got)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		_, err := c.CallTool(ctx, "trigger-long-running-operation", map[string]any{"duration": 5, "steps": 5},
			mcp.WithTimeout(300*time.Millisecond))
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "server notified") {
			t.Fatalf("err = %v", err)
		}
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": "still here"})
		if err != nil || res.Text() != "Echo: still here" {
			t.Errorf("after a timeout: %v %v", res, err)
		}
	})

	if err := c.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// countingDoer counts the requests that reach the server per
// JSON-RPC method, as their Mcp-Method header or body names it.
type countingDoer struct {
	mu  sync.Mutex
	got map[string]int
}

func (d *countingDoer) Do(req *http.Request) (*http.Response, error) {
	method := req.Header.Get("Mcp-Method")
	if method == "" && req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		var m struct{ Method string }
		json.Unmarshal(b, &m)
		method = m.Method
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	d.mu.Lock()
	if d.got == nil {
		d.got = map[string]int{}
	}
	d.got[req.Method+" "+method]++
	d.mu.Unlock()
	return http.DefaultClient.Do(req)
}

func (d *countingDoer) count(key string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.got[key]
}

// server-everything speaks the session revision the client tries first:
// every dial is initialize, none probes, and the memo remembers it.
func TestEverythingRevisions(t *testing.T) {
	url := servicestest.Everything(t)
	d := &countingDoer{}
	memo := &mcp.Revisions{}
	for i := range 3 {
		c, err := mcp.Dial(context.Background(), url, &mcp.Options{HTTPClient: d, Timeout: 20 * time.Second, Revisions: memo})
		if err != nil {
			t.Fatalf("dial %d: %v", i+1, err)
		}
		if res, err := c.CallTool(context.Background(), "echo", map[string]any{"message": "m"}); err != nil || res.Text() != "Echo: m" {
			t.Errorf("dial %d: echo %v %v", i+1, res, err)
		}
		c.Close(context.Background())
	}
	if n := d.count("POST server/discover"); n != 0 {
		t.Errorf("server/discover sent %d times in 3 dials, want none: it speaks the session revision tried first", n)
	}
	if n := d.count("POST initialize"); n != 3 {
		t.Errorf("initialize sent %d times in 3 dials, want 3", n)
	}
	if got := memo.Revision(url); got != mcp.ProtocolVersion {
		t.Errorf("memo says %q", got)
	}
}
