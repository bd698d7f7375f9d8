//go:build !js

package schemaform_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The corpus comes from the real servers:
//
//	go test ./pkg/schemaform -run TestCorpus -update        regenerate it
//	go test ./pkg/schemaform -run TestCorpus -check-corpus  compare it with them
//
// TestCorpus starts @modelcontextprotocol/server-everything and
// @playwright/mcp (every capability switched on, so every tool is listed)
// from the project's node_modules and writes each tool's input schema, as
// the server sent it, to testdata/corpus/<server>.<tool>.json.
var (
	update      = flag.Bool("update", false, "regenerate testdata/corpus from the real MCP servers")
	checkCorpus = flag.Bool("check-corpus", false, "compare testdata/corpus with what the real MCP servers list")
)

func TestCorpus(t *testing.T) {
	if !*update && !*checkCorpus {
		t.Skip("corpus is committed; -update regenerates it from the servers, -check-corpus compares")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("testdata", "corpus")
	dir := committed
	if *update {
		old, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range old {
			os.Remove(f)
		}
	} else {
		dir = t.TempDir()
	}
	defer func() {
		if *checkCorpus && !t.Failed() {
			compareDirs(t, committed, dir)
		}
	}()

	port := freePort(t)
	everything := exec.Command(filepath.Join(root, "node_modules", ".bin", "mcp-server-everything"), "streamableHttp")
	everything.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	dump(t, "everything", everything, fmt.Sprintf("http://127.0.0.1:%d/mcp", port), dir)

	port = freePort(t)
	tmp := t.TempDir()
	playwright := exec.Command("node", filepath.Join(root, "node_modules", "@playwright", "mcp", "cli.js"),
		"--headless", "--isolated", "--port", strconv.Itoa(port), "--host", "127.0.0.1",
		"--caps", "vision,pdf,devtools", "--allowed-hosts", "*", "--output-dir", filepath.Join(tmp, "out"))
	playwright.Dir = tmp
	dump(t, "playwright", playwright, fmt.Sprintf("http://127.0.0.1:%d/mcp", port), dir)
}

// compareDirs fails on every schema file that differs between the
// committed corpus and a fresh dump.
func compareDirs(t *testing.T, committed, fresh string) {
	t.Helper()
	names := map[string]bool{}
	for _, d := range []string{committed, fresh} {
		files, _ := filepath.Glob(filepath.Join(d, "*.json"))
		for _, f := range files {
			names[filepath.Base(f)] = true
		}
	}
	for name := range names {
		a, errA := os.ReadFile(filepath.Join(committed, name))
		b, errB := os.ReadFile(filepath.Join(fresh, name))
		switch {
		case errA != nil:
			t.Errorf("%s: the servers list it, the corpus lacks it (run -update)", name)
		case errB != nil:
			t.Errorf("%s: in the corpus, no longer listed by the servers (run -update)", name)
		case !bytes.Equal(a, b):
			t.Errorf("%s: the servers' schema changed (run -update)", name)
		}
	}
	t.Logf("%d schemas compared", len(names))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// dump starts cmd, lists its tools at url and writes their input schemas.
func dump(t *testing.T, name string, cmd *exec.Cmd, url, dir string) {
	t.Helper()
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	deadline := time.Now().Add(60 * time.Second)
	var (
		s   *rawSession
		err error
	)
	for {
		s, err = initialize(url)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not come up: %v\n%s", name, err, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	n := 0
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := s.call("tools/list", params, &res); err != nil {
			t.Fatalf("%s tools/list: %v", name, err)
		}
		for _, tool := range res.Tools {
			var buf bytes.Buffer
			if err := json.Indent(&buf, tool.InputSchema, "", "  "); err != nil {
				t.Fatalf("%s %s: input schema: %v", name, tool.Name, err)
			}
			buf.WriteByte('\n')
			file := filepath.Join(dir, name+"."+strings.ReplaceAll(tool.Name, "/", "_")+".json")
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	t.Logf("%s: %d tools", name, n)
}

// rawSession is a minimal 2025-11-25 session. The generator speaks the
// protocol itself rather than through package mcp because it must declare
// client capabilities (roots, sampling, elicitation, tasks): server-everything
// lists some of its tools only to clients that have them.
type rawSession struct {
	url, id string
	next    int
}

func initialize(url string) (*rawSession, error) {
	s := &rawSession{url: url}
	var res json.RawMessage
	err := s.call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"clientInfo":      map[string]any{"name": "schemaform-corpus", "version": "1"},
		"capabilities": map[string]any{
			"roots":       map[string]any{},
			"sampling":    map[string]any{},
			"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
			"tasks": map[string]any{"requests": map[string]any{
				"sampling":    map[string]any{"createMessage": map[string]any{}},
				"elicitation": map[string]any{"create": map[string]any{}},
			}},
		},
	}, &res)
	if err != nil {
		return nil, err
	}
	return s, s.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, nil)
}

func (s *rawSession) call(method string, params any, out any) error {
	s.next++
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := s.post(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": method, "params": params}, &msg); err != nil {
		return err
	}
	if msg.Error != nil {
		return fmt.Errorf("%s: error %d: %s", method, msg.Error.Code, msg.Error.Message)
	}
	return json.Unmarshal(msg.Result, out)
}

// post sends one message; when out is not nil it reads the response, a
// JSON body or an SSE stream whose data line carries it.
func (s *rawSession) post(msg any, out any) error {
	body, _ := json.Marshal(msg)
	req, err := http.NewRequest("POST", s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("HTTP %s: %s", resp.Status, b)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		s.id = id
	}
	if out == nil {
		return nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			var probe struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal([]byte(data), &probe) == nil && len(probe.ID) > 0 {
				return json.Unmarshal([]byte(data), out)
			}
		}
		return fmt.Errorf("stream ended without a response: %v", sc.Err())
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
