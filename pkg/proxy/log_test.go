package proxy_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

// TestLogsHoldNoSecrets captures everything a proxied exchange could log —
// the standard logger, slog's default logger, the process's stdout and
// stderr, and the handler's own events formatted the ways hosts print them
// — and checks that neither the key nor a request or response body is in
// it.
func TestLogsHoldNoSecrets(t *testing.T) {
	var mu sync.Mutex
	var captured bytes.Buffer
	sink := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return captured.Write(p)
	})

	oldLog, oldFlags, oldSlog := log.Writer(), log.Flags(), slog.Default()
	log.SetOutput(sink)
	slog.SetDefault(slog.New(slog.NewTextHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug})))
	restoreStd := captureStd(t, sink)
	defer func() {
		restoreStd()
		log.SetOutput(oldLog)
		log.SetFlags(oldFlags)
		slog.SetDefault(oldSlog)
	}()

	var events atomic.Int32
	tg := startNative(t, func(e proxy.Event) {
		events.Add(1)
		slog.Info("proxy", "method", e.Method, "path", e.Path, "status", e.Status, "code", e.Code,
			"upstream", e.Upstream, "bytes", e.Bytes, "duration", e.Duration)
		log.Printf("proxy %+v", e)
		fmt.Fprintf(os.Stderr, "proxy %#v\n", e)
	})

	base := "http://" + tg.Addr + proxy.MountPath
	body := `{"model":"m","messages":[{"role":"user","content":"` + proxytest.BodySentinel + `"}]}`
	exchanges := []struct {
		method, path, body string
		origin             string
	}{
		{"GET", "key", "", tg.Origin},
		{"GET", "models", "", tg.Origin},
		{"POST", "chat/completions", body, tg.Origin},
		{"POST", "chat/completions", body, "https://evil.example"},                               // refused
		{"GET", "redirect/302", "", tg.Origin},                                                   // upstream redirect refused
		{"GET", "no-such-endpoint", "", tg.Origin},                                               // upstream 404
		{"POST", "chat/completions", strings.Repeat(proxytest.BodySentinel, 400_000), tg.Origin}, // over the cap
	}
	for _, x := range exchanges {
		req, err := http.NewRequest(x.method, base+x.path, strings.NewReader(x.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", x.origin)
		req.Header.Set("Authorization", proxytest.Key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// A streamed completion too, events released as they are read.
	req, _ := http.NewRequest("POST", base+"chat/completions", strings.NewReader(`{"stream":true,"messages":"`+proxytest.BodySentinel+`"}`))
	req.Header.Set("Origin", tg.Origin)
	req.Header.Set("Authorization", proxytest.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < proxytest.Events; i++ {
		tg.Upstream.Release()
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	restoreStd()
	mu.Lock()
	out := captured.String()
	mu.Unlock()
	if n := int(events.Load()); n != len(exchanges)+1 {
		t.Fatalf("%d events logged, want %d", n, len(exchanges)+1)
	}
	for _, want := range []string{"chat/completions", "origin_forbidden", "upstream_redirect", "body_too_large", "status=200"} {
		if !strings.Contains(out, want) {
			t.Errorf("captured log lacks %q, so the capture missed output:\n%s", want, out)
		}
	}
	token := strings.TrimSpace(strings.TrimPrefix(proxytest.Key, "Bearer"))
	for _, secret := range []string{token, token[:20], proxytest.BodySentinel, proxytest.ResponseSentinel, "part0"} {
		if strings.Contains(out, secret) {
			t.Errorf("captured log contains %q:\n%s", secret, out)
		}
	}
	t.Logf("captured %d bytes of log output, none secret", len(out))
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// captureStd redirects os.Stdout and os.Stderr into sink until the
// returned function is called (idempotent).
func captureStd(t *testing.T, sink io.Writer) func() {
	t.Helper()
	oldOut, oldErr := os.Stdout, os.Stderr
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout, os.Stderr = w, w
	done := make(chan struct{})
	go func() {
		io.Copy(sink, r)
		close(done)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			os.Stdout, os.Stderr = oldOut, oldErr
			w.Close()
			<-done
			r.Close()
		})
	}
}
