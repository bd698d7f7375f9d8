package proxy

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSameOrigin: with no AllowedOrigin, the proxy and the relay take a
// request's own scheme and Host as the workbench's origin when the Host is
// one no DNS-rebinding page can name, and refuse everything else as with a
// configured origin.
func TestSameOrigin(t *testing.T) {
	for _, tt := range []struct {
		name, scheme, host string
		tls                bool
		origin             string // "" for a same-origin GET attested by Sec-Fetch-Site
		status             int
		code               string
	}{
		{"workers.dev", "https", "skill-workbench.team.workers.dev", false, "https://skill-workbench.team.workers.dev", 200, ""},
		{"pages.dev preview", "https", "0a1b2c3d.skill-workbench.pages.dev", false, "https://0a1b2c3d.skill-workbench.pages.dev", 200, ""},
		{"loopback with port", "http", "127.0.0.1:8787", false, "http://127.0.0.1:8787", 200, ""},
		{"localhost", "http", "localhost:8787", false, "http://localhost:8787", 200, ""},
		{"v6 loopback", "http", "[::1]:8787", false, "http://[::1]:8787", 200, ""},
		{"host in upper case", "https", "Skill-Workbench.Team.Workers.DEV", false, "https://skill-workbench.team.workers.dev", 200, ""},
		{"attested GET", "https", "skill-workbench.team.workers.dev", false, "", 200, ""},
		{"scheme from the connection", "", "127.0.0.1:8000", true, "https://127.0.0.1:8000", 200, ""},
		{"plain connection", "", "127.0.0.1:8000", false, "http://127.0.0.1:8000", 200, ""},

		{"foreign origin", "https", "skill-workbench.team.workers.dev", false, "https://evil.example", 403, CodeOriginForbidden},
		{"other workers.dev", "https", "skill-workbench.team.workers.dev", false, "https://evil.team.workers.dev", 403, CodeOriginForbidden},
		{"other scheme", "https", "skill-workbench.team.workers.dev", false, "http://skill-workbench.team.workers.dev", 403, CodeOriginForbidden},
		{"other port", "http", "127.0.0.1:8787", false, "http://127.0.0.1:8788", 403, CodeOriginForbidden},
		{"null origin", "http", "127.0.0.1:8787", false, "null", 403, CodeOriginForbidden},

		{"rebinding name", "http", "rebind.example:8787", false, "http://rebind.example:8787", 421, CodeHostForbidden},
		{"custom domain", "https", "workbench.example.org", false, "https://workbench.example.org", 421, CodeHostForbidden},
		{"suffix without a dot", "https", "evilworkers.dev", false, "https://evilworkers.dev", 421, CodeHostForbidden},
		{"bare suffix", "https", ".workers.dev", false, "https://.workers.dev", 421, CodeHostForbidden},
		{"trailing dot", "https", "skill-workbench.team.workers.dev.", false, "https://skill-workbench.team.workers.dev.", 421, CodeHostForbidden},
		{"suffix inside", "https", "skill-workbench.workers.dev.evil.example", false, "https://skill-workbench.workers.dev.evil.example", 421, CodeHostForbidden},
		{"loopback look-alike", "http", "127.0.0.1.evil.example", false, "http://127.0.0.1.evil.example", 421, CodeHostForbidden},
		{"empty Host", "http", "", false, "http://", 421, CodeHostForbidden},
		{"userinfo in Host", "http", "evil@127.0.0.1", false, "http://evil@127.0.0.1", 421, CodeHostForbidden},
		{"path in Host", "http", "127.0.0.1/x", false, "http://127.0.0.1/x", 421, CodeHostForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(Config{AllowedOrigin: SameOrigin, Doer: &recorder{}})
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewMCPRelay(MCPConfig{AllowedOrigin: SameOrigin, Servers: []MCPServer{{"shell", mcpShellURL}}, Doer: &recorder{}})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []struct {
				name string
				h    http.Handler
				path string
			}{{"proxy", p, MountPath + "key"}, {"relay", m, MCPMountPath + "shell"}} {
				headers := hdr("Origin", tt.origin)
				if tt.origin == "" {
					headers = hdr("Sec-Fetch-Site", "same-origin")
				}
				r := request("GET", h.path, headers, "")
				r.URL.Scheme, r.Host = tt.scheme, tt.host
				if tt.tls {
					r.TLS = &tls.ConnectionState{}
				}
				rr := httptest.NewRecorder()
				h.h.ServeHTTP(rr, r)
				if rr.Code != tt.status {
					t.Fatalf("%s: status %d, want %d; %s", h.name, rr.Code, tt.status, rr.Body)
				}
				if tt.code != "" {
					if e := decodeError(t, rr); e.Code != tt.code {
						t.Errorf("%s: code %q, want %q", h.name, e.Code, tt.code)
					}
				}
			}
		})
	}
}

// TestConfiguredOriginIgnoresOwnHost: an explicit AllowedOrigin is the
// only origin, even for a Host the same-origin default would serve.
func TestConfiguredOriginIgnoresOwnHost(t *testing.T) {
	p, err := New(Config{AllowedOrigin: testOrigin, Doer: &recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	r := request("GET", MountPath+"key", hdr("Origin", "https://skill-workbench.team.workers.dev"), "")
	r.URL.Scheme, r.Host = "https", "skill-workbench.team.workers.dev"
	rr := httptest.NewRecorder()
	p.ServeHTTP(rr, r)
	if rr.Code != 421 {
		t.Fatalf("status %d, want 421; %s", rr.Code, rr.Body)
	}
}
