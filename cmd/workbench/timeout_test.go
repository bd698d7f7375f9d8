package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/openrouter/openroutertest"
)

// A stand-in that accepts the request and never answers ends the run at
// --model-timeout with one line that says so, not a hang.
func TestTeachModelNeverAnswers(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(openroutertest.Hang())))
	code, stdout, stderr := pipeline(t, or, "teach", "--scenario", fixtures.BasicPromptToManifest,
		"--model", teacherModel, "--model-timeout", "300ms", "--out", t.TempDir()+"/x.skill.json")
	wantCode(t, code, exitUnproven, stdout, stderr)
	last := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
	for _, want := range []string{"workbench teach:", "no complete reply within 300ms", "--model-timeout"} {
		if !strings.Contains(last, want) {
			t.Errorf("last line lacks %q:\n%s", want, stderr)
		}
	}
}

func TestModelTimeoutFlag(t *testing.T) {
	for _, v := range []string{"0s", "-1s"} {
		code, stdout, stderr := runCmd(t, "", "teach", "--scenario", fixtures.BasicPromptToManifest, "--model", teacherModel, "--model-timeout", v)
		wantCode(t, code, exitInvalid, stdout, stderr)
		oneLine(t, stderr, "--model-timeout", "must be positive")
	}
}

// The OpenRouter client's transport gives up on a server that accepts the
// connection and sends no status line. The header limit is its own only
// under a longer whole-request limit, so that a short --model-timeout is
// the limit an error names.
func TestModelHTTPClientHeaderTimeout(t *testing.T) {
	for _, tt := range []struct{ limit, want time.Duration }{
		{defaultModelTimeout, headerTimeout}, {headerTimeout, 0}, {300 * time.Millisecond, 0},
	} {
		if got := headerLimit(tt.limit); got != tt.want {
			t.Errorf("headerLimit(%s) = %s, want %s", tt.limit, got, tt.want)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never written to
		}
	}()
	hc := modelHTTPClient(200 * time.Millisecond)
	tr := hc.Transport.(*http.Transport)
	if tr.TLSHandshakeTimeout != connectTimeout || tr.ResponseHeaderTimeout != 200*time.Millisecond {
		t.Errorf("TLS handshake %s, header %s", tr.TLSHandshakeTimeout, tr.ResponseHeaderTimeout)
	}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://"+ln.Addr().String()+"/", nil)
	resp, err := hc.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatal("a server that sends nothing answered")
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !strings.Contains(err.Error(), "timeout awaiting response headers") {
		t.Errorf("error %v, want the header timeout", err)
	}
	if msg, code := explain(err); code != exitUnproven || !strings.Contains(msg, "did not answer in time") {
		t.Errorf("explained as %q, exit %d", msg, code)
	}
}
