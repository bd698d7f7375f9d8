package proxy_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

// testTimeouts are the handlers' clocks in the wire tests: short, so that
// RunTimeouts can watch each fire.
var testTimeouts = proxytest.Timeouts{Body: 2 * time.Second, Header: 2 * time.Second, Idle: 2 * time.Second}

// startNative serves the handler, with its native Doer, on a loopback
// server in front of a recording upstream.
func startNative(t testing.TB, log func(proxy.Event)) proxytest.Target {
	up := proxytest.NewUpstream(t)
	var h *proxy.Handler
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	h, err := proxy.New(proxy.Config{AllowedOrigin: origin, Upstream: up.URL, Doer: proxy.NewHTTPDoer(), Log: log,
		BodyTimeout: testTimeouts.Body, HeaderTimeout: testTimeouts.Header, IdleTimeout: testTimeouts.Idle})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = proxy.CloseAfterChunked(h)
	srv.Start()
	t.Cleanup(srv.Close)
	return proxytest.Target{
		Addr:     strings.TrimPrefix(srv.URL, "http://"),
		Origin:   origin,
		Layer:    proxytest.Native,
		Upstream: up,
		// What net/http's client adds on its own.
		TransportHeaders: []string{"Content-Length", "Accept-Encoding"},
	}
}

func TestNativeAttacks(t *testing.T) { proxytest.RunAttacks(t, startNative(t, nil)) }

func TestNativeForwarding(t *testing.T) { proxytest.RunForwarding(t, startNative(t, nil)) }

func TestNativeSSE(t *testing.T) { proxytest.RunSSE(t, startNative(t, nil)) }

func TestNativeEdge(t *testing.T) { proxytest.RunEdge(t, startNative(t, nil)) }

// TestNativeTimeouts and TestNativeMCPTimeouts run side by side, each
// with its own server: they spend their time waiting on its clocks.
func TestNativeTimeouts(t *testing.T) {
	t.Parallel()
	proxytest.RunTimeouts(t, startNative(t, nil), testTimeouts)
}
