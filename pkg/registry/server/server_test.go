package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"workbench/pkg/registry"
	"workbench/pkg/registry/registrytest"
	"workbench/pkg/registry/server"
	"workbench/pkg/verify"
)

// untouched is the storage of a handler whose refusals must come before
// any read or write: every call fails the test. The behaviour of real
// storage (R2 and D1) is tested under wrangler dev (proxy/registry_test.go).
type untouched struct{ t *testing.T }

func (u untouched) Entry(context.Context, string) (registry.Entry, bool, error) {
	u.t.Error("the index was read")
	return registry.Entry{}, false, nil
}
func (u untouched) Insert(context.Context, registry.Entry) (bool, error) {
	u.t.Error("the index was written")
	return false, nil
}
func (u untouched) Withdraw(context.Context, string, string, []byte) (bool, error) {
	u.t.Error("the index was written")
	return false, nil
}
func (u untouched) List(context.Context, registry.Query) ([]registry.Entry, error) {
	u.t.Error("the index was read")
	return nil, nil
}
func (u untouched) Exists(context.Context, string) (bool, error) {
	u.t.Error("the bucket was read")
	return false, nil
}
func (u untouched) Put(context.Context, string, []byte) error {
	u.t.Error("the bucket was written")
	return nil
}
func (u untouched) Get(context.Context, string) ([]byte, bool, error) {
	u.t.Error("the bucket was read")
	return nil, false, nil
}

const origin = "https://wb.example.org"

func handler(t *testing.T, v *verify.Verifier, allow bool) *server.Handler {
	t.Helper()
	h, err := server.New(server.Config{
		AllowedOrigin: origin,
		Index:         untouched{t}, Bucket: untouched{t},
		Verifier: func() (*verify.Verifier, error) { return v, nil },
		Limit:    func(context.Context, string) (bool, error) { return allow, nil },
		Client:   func(*http.Request) string { return "192.0.2.1" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

type answer struct {
	status int
	header http.Header
	code   string
	body   []byte
}

func send(h http.Handler, method, target string, body []byte, hdr ...string) answer {
	req := httptest.NewRequest(method, origin+target, bytes.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(rec.Body.Bytes(), &e)
	return answer{rec.Code, rec.Header(), e.Error.Code, rec.Body.Bytes()}
}

// Every refused publish is refused before the index or the bucket is
// touched, with the verifier's reasons.
func TestRefusedBundlesTouchNothing(t *testing.T) {
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	h := handler(t, v, true)
	for _, c := range registrytest.RefusedBundles(t, v) {
		a := send(h, "POST", registry.BundlesPath, c.Body, "Content-Type", "application/json")
		if a.status != c.Status || a.code != c.Code {
			t.Errorf("%s: %d %s, want %d %s: %s", c.Name, a.status, a.code, c.Status, c.Code, a.body)
		}
		if a.header.Get("Content-Security-Policy") != "default-src 'none'; sandbox" {
			t.Errorf("%s: no sandbox CSP", c.Name)
		}
	}
}

func TestRefusedBeforeStorage(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	withdrawal := registrytest.Withdrawal(t, registrytest.Key(1), origin, hash)
	for _, c := range []struct {
		name, method, target string
		body                 []byte
		hdr                  []string
		status               int
		code                 string
	}{
		{"foreign Host", "GET", registry.SkillsPath, nil, []string{"Host", "rebind.example"}, 421, "host_forbidden"},
		{"publish from a foreign page", "POST", registry.BundlesPath, []byte("{}"), []string{"Origin", "https://evil.example", "Content-Type", "application/json"}, 403, "origin_forbidden"},
		{"withdraw from a foreign page", "POST", registry.WithdrawalsPath, withdrawal, []string{"Origin", "https://evil.example", "Content-Type", "application/json"}, 403, "origin_forbidden"},
		{"publish as text/plain", "POST", registry.BundlesPath, registrytest.Publishable(t), []string{"Content-Type", "text/plain"}, 415, "unsupported_media"},
		{"hash in upper case", "GET", registry.BundlesPath + "/" + strings.ToUpper(hash), nil, nil, 400, "path_invalid"},
		{"hash with an extra segment", "GET", registry.BundlesPath + "/" + hash + "/x", nil, nil, 400, "path_invalid"},
		{"encoded slash", "GET", registry.BundlesPath + "/..%2F..%2Fskills", nil, nil, 400, "path_invalid"},
		{"encoded colon", "GET", registry.BundlesPath + "/sha256%3A" + strings.Repeat("ab", 32), nil, nil, 400, "path_invalid"},
		{"dot segments", "GET", registry.BundlesPath + "/../../llm/openrouter/key", nil, nil, 400, "path_invalid"},
		{"empty segment", "GET", registry.BundlesPath + "//" + hash, nil, nil, 400, "path_invalid"},
		{"short hash", "GET", registry.SkillsPath + "/sha256:abc", nil, nil, 400, "path_invalid"},
		{"no such route", "GET", registry.MountPath + "keys", nil, nil, 404, "not_found"},
		{"publish by GET", "GET", registry.BundlesPath, nil, nil, 405, "method_not_allowed"},
		{"bundle by POST", "POST", registry.BundlesPath + "/" + hash, []byte("{}"), []string{"Content-Type", "application/json"}, 405, "method_not_allowed"},
		{"listing with an unknown parameter", "GET", registry.SkillsPath + "?sort=name", nil, nil, 400, registry.CodeQuery},
		{"withdrawal with an unknown member", "POST", registry.WithdrawalsPath, []byte(`{"content_hash":"` + hash + `","x":1}`), []string{"Content-Type", "application/json"}, 400, registry.CodeWithdrawal},
		{"withdrawal over 4 KiB", "POST", registry.WithdrawalsPath, bytes.Repeat([]byte(" "), registry.MaxWithdrawalBytes+1), []string{"Content-Type", "application/json"}, 413, registry.CodeWithdrawal},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, origin+c.target, bytes.NewReader(c.body))
			for i := 0; i+1 < len(c.hdr); i += 2 {
				if c.hdr[i] == "Host" {
					req.Host = c.hdr[i+1]
				} else {
					req.Header.Set(c.hdr[i], c.hdr[i+1])
				}
			}
			rec := httptest.NewRecorder()
			handler(t, nil, true).ServeHTTP(rec, req)
			var e struct {
				Error struct{ Code string } `json:"error"`
			}
			json.Unmarshal(rec.Body.Bytes(), &e)
			if rec.Code != c.status || e.Error.Code != c.code {
				t.Errorf("%d %s, want %d %s: %s", rec.Code, e.Error.Code, c.status, c.code, rec.Body)
			}
		})
	}
}

// Over its write budget a client is answered 429 before its bundle is
// read or verified.
func TestWriteLimit(t *testing.T) {
	a := send(handler(t, nil, false), "POST", registry.BundlesPath, registrytest.Publishable(t), "Content-Type", "application/json")
	if a.status != 429 || a.code != "rate_limited" || a.header.Get("Retry-After") != "60" {
		t.Errorf("%d %s Retry-After %q", a.status, a.code, a.header.Get("Retry-After"))
	}
}

// Without storage the deployment says it has no registry, on every route.
func TestUnavailable(t *testing.T) {
	h, err := server.New(server.Config{Unavailable: "its Worker has no REGISTRY_DB binding"})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{registry.SkillsPath, registry.BundlesPath, registry.WithdrawalsPath} {
		req := httptest.NewRequest("GET", "http://127.0.0.1:8787"+target, nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 501 || !strings.Contains(rec.Body.String(), `"registry_unavailable"`) || !strings.Contains(rec.Body.String(), "REGISTRY_DB") {
			t.Errorf("%s: %d %s", target, rec.Code, rec.Body)
		}
	}
	req := httptest.NewRequest("GET", "http://127.0.0.1:8787"+registry.MountPath, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var st registry.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &st); rec.Code != 200 || err != nil || st.Available || !strings.Contains(st.Reason, "REGISTRY_DB") {
		t.Errorf("the status without storage: %d %s", rec.Code, rec.Body)
	}
	if _, err := server.New(server.Config{}); err == nil {
		t.Error("a handler with no storage and no reason was made")
	}
}

// With storage, the status says the registry is there without touching
// the storage; it takes GET only.
func TestStatus(t *testing.T) {
	h := handler(t, nil, true)
	a := send(h, "GET", registry.MountPath, nil)
	var st registry.Status
	if err := json.Unmarshal(a.body, &st); a.status != 200 || err != nil || !st.Available || st.Reason != "" {
		t.Errorf("the status: %d %s", a.status, a.body)
	}
	if a.header.Get("Access-Control-Allow-Origin") != "*" || a.header.Get("Content-Security-Policy") == "" {
		t.Errorf("the status's headers: %v", a.header)
	}
	if a := send(h, "POST", registry.MountPath, []byte("{}"), "Content-Type", "application/json"); a.status != 405 {
		t.Errorf("a POST of the status: %d %s", a.status, a.body)
	}
}
