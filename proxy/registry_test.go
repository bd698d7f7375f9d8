//go:build !js

package main

// The skill registry under wrangler dev: the Worker's two programs behind
// its entry module, R2 and D1 simulated locally by wrangler (Miniflare),
// the index's tables made by the repository's migrations as a deployment
// makes them.

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"workbench/pkg/proxy/wranglertest"
	"workbench/pkg/registry"
	"workbench/pkg/registry/registrytest"
	"workbench/pkg/registry/server"
	"workbench/pkg/signature"
	"workbench/schemas"
)

// regDev is a wrangler dev whose registry has its tables.
type regDev struct {
	*devServer
	t       testing.TB
	clients atomic.Int32 // the next client address's number
	schemas *schemas.Validator
	config  string // its wrangler.toml
}

// startRegistryDev starts wrangler dev with the repository's wrangler.toml:
// its R2, D1 and REGISTRY_RL bindings, and no tables in D1 until migrate.
func startRegistryDev(t testing.TB, bin string) *regDev {
	t.Helper()
	d, inspector, err := newDevServer()
	if err != nil {
		t.Fatal(err)
	}
	config, err := writeWranglerConfig(d.tmp, nil)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(d.tmp, "state")
	args := []string{"dev", "--local", "--ip", "127.0.0.1", "--port", d.port(), "--inspector-port", inspector,
		"--persist-to", state, "--show-interactive-dev-session=false", "--log-level", "log", "--config", config,
		"--var", "ALLOWED_ORIGIN:" + d.origin}
	if err := d.launch(bin, "..", args); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("wrangler dev's log:\n%s", tail(d.logs.String(), 64<<10))
		}
		d.stop()
	})
	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	return &regDev{devServer: d, t: t, schemas: v, config: config}
}

// migrate applies migrations/ to the running dev server's local D1 with
// `wrangler d1 migrations apply`, as an operator does after deploying.
func (r *regDev) migrate(bin string) {
	r.t.Helper()
	if err := wranglertest.Migrate(bin, r.config, filepath.Join(r.tmp, "state"), r.tmp); err != nil {
		r.t.Fatal(err)
	}
}

// client returns an HTTP client from a loopback address of its own: the
// registry counts writes per client address, and the tests that are not
// about that limit must not meet it.
func (r *regDev) client() *http.Client {
	n := r.clients.Add(1)
	return clientFrom(fmt.Sprintf("127.0.%d.%d", 20+n/250, 1+n%250))
}

// reply is an answer's status, headers and body.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// code is the error code of an error answer.
func (a reply) code() string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(a.body, &e)
	return e.Error.Code
}

func (r *regDev) do(c *http.Client, method, path string, body []byte, hdr ...string) reply {
	r.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, r.origin+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

func (r *regDev) post(path string, body []byte) reply {
	r.t.Helper()
	return r.do(r.client(), "POST", path, body)
}

func (r *regDev) get(path string) reply {
	r.t.Helper()
	return r.do(r.client(), "GET", path, nil)
}

// valid fails the test unless the answer's body is valid against the
// registry's schema id.
func (r *regDev) valid(t *testing.T, what, id string, a reply) {
	t.Helper()
	if err := r.schemas.ValidateJSON(id, a.body); err != nil {
		t.Errorf("%s: the answer does not fit %s: %v\n%s", what, id, err, a.body)
	}
}

// state is what the registry stores: the R2 objects wrangler keeps
// (each put writes a blob file of its own) and the whole index as the
// listing reads it.
type state struct {
	blobs []string
	index string
}

func (r *regDev) state() state {
	r.t.Helper()
	var s state
	entries, err := os.ReadDir(filepath.Join(r.tmp, "state", "v3", "r2", "skill-workbench-bundles", "blobs"))
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	for _, e := range entries {
		s.blobs = append(s.blobs, e.Name())
	}
	cursor := ""
	for {
		path := registry.SkillsPath + "?limit=50"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		a := r.get(path)
		if a.status != 200 {
			r.t.Fatalf("listing the index: %d %s", a.status, a.body)
		}
		s.index += string(a.body)
		var p registry.Page
		if err := json.Unmarshal(a.body, &p); err != nil {
			r.t.Fatal(err)
		}
		if p.NextCursor == nil {
			return s
		}
		cursor = *p.NextCursor
	}
}

func (r *regDev) unchanged(t *testing.T, what string, before state) {
	t.Helper()
	after := r.state()
	if !slices.Equal(before.blobs, after.blobs) {
		t.Errorf("%s changed the bucket: %d objects, then %d", what, len(before.blobs), len(after.blobs))
	}
	if before.index != after.index {
		t.Errorf("%s changed the index:\n%s\nthen\n%s", what, before.index, after.index)
	}
}

// TestWorkerdRegistry publishes, finds, serves and withdraws bundles
// through the Worker under wrangler dev, refuses every abuse it must
// refuse leaving the bucket and the index as they were, and checks
// that a deployment without the bindings, or without its tables, says so.
func TestWorkerdRegistry(t *testing.T) {
	d := requireWorker(t)
	bin := os.Getenv("WORKBENCH_WRANGLER")
	var wg sync.WaitGroup
	// The command line, built meanwhile.
	cli := filepath.Join(t.TempDir(), "workbench")
	var cliErr error
	wg.Go(func() {
		began := time.Now()
		out, err := exec.Command("go", "build", "-o", cli, "../cmd/workbench").CombinedOutput()
		t.Logf("the command line built in %s", time.Since(began).Round(100*time.Millisecond))
		if err != nil {
			cliErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	began := time.Now()
	r := startRegistryDev(t, bin)
	t.Logf("the registry's wrangler dev answered after %s", time.Since(began).Round(100*time.Millisecond))
	// Deployed, its migrations not applied yet: the registry says so.
	if a := r.get(registry.SkillsPath); a.status != 503 || a.code() != registry.CodeNotReady {
		t.Errorf("before the migrations: %d %s", a.status, a.body)
	}
	if a := r.get(registry.MountPath); a.status != 200 || !bytes.Equal(a.body, []byte(`{"available":true}`+"\n")) {
		t.Errorf("the status: %d %s", a.status, a.body)
	} else {
		r.valid(t, "the status", schemas.RegistryStatus, a)
	}
	began = time.Now()
	r.migrate(bin)
	t.Logf("migrations applied in %s", time.Since(began).Round(100*time.Millisecond))
	v := registrytest.Verifier(t)
	k1 := registrytest.Key(1)
	published := registrytest.Publishable(t)
	hash := registrytest.ContentHash(t, published)
	var first reply

	t.Run("publish", func(t *testing.T) {
		first = r.post(registry.BundlesPath, published)
		if first.status != 200 {
			t.Fatalf("%d %s", first.status, first.body)
		}
		r.valid(t, "publish", schemas.RegistryEntry, first)
		var e registry.Entry
		json.Unmarshal(first.body, &e)
		if e.ContentHash != hash || e.SignerKeyID != signature.KeyID(k1.Public()) || e.Verdict != "pass" ||
			e.RedactionProfile != "transcript_pii" || e.Withdrawn() || e.PublishedAt == "" {
			t.Errorf("entry %+v", e)
		}
		if got := r.get(registry.SkillsPath + "/" + hash); got.status != 200 || !bytes.Equal(got.body, first.body) {
			t.Errorf("GET the entry: %d %s", got.status, got.body)
		}
		b := r.get(registry.BundlesPath + "/" + hash)
		for k, want := range map[string]string{
			"Content-Type":                "application/json",
			"Content-Disposition":         `attachment; filename="` + e.Slug + `.v2.skill.json"`,
			"Cache-Control":               "public, max-age=31536000, immutable",
			"Content-Security-Policy":     "default-src 'none'; sandbox",
			"X-Content-Type-Options":      "nosniff",
			"Access-Control-Allow-Origin": "*",
		} {
			if got := b.header.Get(k); got != want {
				t.Errorf("bundle %s: %q, want %q", k, got, want)
			}
		}
		rep, err := v.Bytes(b.body)
		if b.status != 200 || err != nil || rep.ContentHash != hash || rep.SignatureKeyID != e.SignerKeyID || rep.Verdict != "pass" {
			t.Errorf("the served bytes: %d %v %+v", b.status, err, rep)
		}
	})
	if first.status != 200 {
		t.FailNow()
	}

	t.Run("a second publish writes nothing", func(t *testing.T) {
		before := r.state()
		again := r.post(registry.BundlesPath, published)
		if again.status != 200 || !bytes.Equal(again.body, first.body) {
			t.Errorf("%d %s, want the first answer again", again.status, again.body)
		}
		// The same content signed by another key: the first signer's
		// copy stands.
		other := r.post(registry.BundlesPath, registrytest.Sign(t, registrytest.Key(3), registrytest.Fixture(t, "redacted-transcript_pii.v0.json")))
		if other.status != 200 || !bytes.Equal(other.body, first.body) {
			t.Errorf("another signer: %d %s, want the first answer", other.status, other.body)
		}
		r.unchanged(t, "publishing again", before)
	})

	t.Run("refused bundles change nothing", func(t *testing.T) {
		for _, c := range registrytest.RefusedBundles(t, v) {
			before := r.state()
			a := r.post(registry.BundlesPath, c.Body)
			if a.status != c.Status || a.code() != c.Code {
				t.Errorf("%s: %d %s, want %d %s", c.Name, a.status, a.body, c.Status, c.Code)
			}
			r.valid(t, c.Name, schemas.RegistryError, a)
			r.unchanged(t, c.Name, before)
		}
	})

	t.Run("path tricks", func(t *testing.T) {
		before := r.state()
		for _, p := range []string{
			registry.BundlesPath + "/" + strings.ToUpper(hash),
			registry.BundlesPath + "/" + hash + "/x",
			registry.BundlesPath + "/sha256%3A" + strings.TrimPrefix(hash, "sha256:"),
			registry.BundlesPath + "/%2e%2e%2fskills",
			registry.BundlesPath + "/..%2F..%2Fllm%2Fopenrouter%2Fkey",
			registry.BundlesPath + "/" + hash + "%00",
			registry.BundlesPath + "/sha256:" + strings.Repeat("0", 64),
			registry.MountPath + "bundles%2f" + hash,
		} {
			a := r.get(p)
			if a.status != 400 && a.status != 404 {
				t.Errorf("GET %s: %d %s, want 400 or 404", p, a.status, a.body)
			}
			if a.status != 404 || a.code() != "not_found" {
				r.valid(t, p, schemas.RegistryError, a)
			}
		}
		// Dot segments are the runtime's: workerd resolves them before the
		// Worker sees the path (docs/decisions.md), and what is routed is
		// what is checked — here a GET of the publish route.
		if a := r.get(registry.SkillsPath + "/" + hash + "/../../bundles"); a.status != 405 {
			t.Errorf("dot segments: %d %s", a.status, a.body)
		}
		r.unchanged(t, "the path tricks", before)
	})

	t.Run("withdraw", func(t *testing.T) {
		for _, c := range registrytest.RefusedWithdrawals(t, r.origin, hash) {
			before := r.state()
			a := r.post(registry.WithdrawalsPath, c.Body)
			if a.status != c.Status || a.code() != c.Code {
				t.Errorf("%s: %d %s, want %d %s", c.Name, a.status, a.body, c.Status, c.Code)
			}
			r.unchanged(t, c.Name, before)
		}
		unknown := "sha256:" + strings.Repeat("1", 64)
		if a := r.post(registry.WithdrawalsPath, registrytest.Withdrawal(t, k1, r.origin, unknown)); a.status != 404 || a.code() != registry.CodeNotPublished {
			t.Errorf("withdrawing what was never published: %d %s", a.status, a.body)
		}
		withdrawal := registrytest.Withdrawal(t, k1, r.origin, hash)
		r.valid(t, "the withdrawal", schemas.RegistryWithdrawal, reply{body: withdrawal})
		a := r.post(registry.WithdrawalsPath, withdrawal)
		var e registry.Entry
		json.Unmarshal(a.body, &e)
		if a.status != 200 || !e.Withdrawn() || e.ContentHash != hash {
			t.Fatalf("the signer's withdrawal: %d %s", a.status, a.body)
		}
		r.valid(t, "withdrawn", schemas.RegistryEntry, a)
		before := r.state()
		if !strings.Contains(before.index, `"withdrawn_at":"`+*e.WithdrawnAt+`"`) {
			t.Errorf("the listing does not say it is withdrawn: %s", before.index)
		}
		if b := r.get(registry.BundlesPath + "/" + hash); b.status != 200 || registrytest.ContentHash(t, b.body) != hash {
			t.Errorf("a withdrawn bundle's bytes: %d", b.status)
		}
		// The same withdrawal again, replayed: refused, nothing changes.
		if a := r.post(registry.WithdrawalsPath, withdrawal); a.status != 409 || a.code() != registry.CodeAlreadyWithdrawn {
			t.Errorf("the withdrawal replayed: %d %s", a.status, a.body)
		}
		// Publishing a withdrawn bundle again gives its entry, withdrawn.
		if a := r.post(registry.BundlesPath, published); a.status != 200 || !bytes.Contains(a.body, []byte(`"withdrawn_at":"`+*e.WithdrawnAt)) {
			t.Errorf("publishing a withdrawn bundle again: %d %s", a.status, a.body)
		}
		r.unchanged(t, "the replayed withdrawal and the publish of a withdrawn bundle", before)
	})

	t.Run("listing", func(t *testing.T) {
		for _, profile := range []string{"transcript_pii", "full"} {
			if a := r.post(registry.BundlesPath, registrytest.Exported(t, v, "valid-skill-bundle.v0.json", profile, registrytest.Key(4))); a.status != 200 {
				t.Fatalf("publishing the %s export: %d %s", profile, a.status, a.body)
			}
		}
		var all []string
		cursor := ""
		for range 4 {
			path := registry.SkillsPath + "?limit=1"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			a := r.get(path)
			r.valid(t, "a page", schemas.RegistryPage, a)
			var p registry.Page
			json.Unmarshal(a.body, &p)
			for _, e := range p.Skills {
				all = append(all, e.PublishedAt+" "+e.ContentHash)
			}
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
		}
		if len(all) != 3 || !slices.IsSortedFunc(all, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Errorf("three pages of one, newest first: %v", all)
		}
		count := func(query string) int {
			a := r.get(registry.SkillsPath + "?" + query)
			var p registry.Page
			if a.status != 200 || json.Unmarshal(a.body, &p) != nil {
				t.Fatalf("?%s: %d %s", query, a.status, a.body)
			}
			return len(p.Skills)
		}
		k4 := signature.KeyID(registrytest.Key(4).Public())
		for query, want := range map[string]int{
			"q=support+form":                         1,
			"q=SUPPORT":                              1,
			"q=%25":                                  0, // a wildcard nowhere: matched as itself
			"signer=" + k4:                           2,
			"signer=" + k4 + "&q=support":            0,
			"q=" + strings.Repeat("z", 100):          0,
			"signer=" + signature.KeyID(k1.Public()): 1,
		} {
			if got := count(query); got != want {
				t.Errorf("?%s: %d entries, want %d", query, got, want)
			}
		}
		if a := r.get(registry.SkillsPath + "?cursor=forged"); a.status != 400 || a.code() != registry.CodeQuery {
			t.Errorf("a forged cursor: %d %s", a.status, a.body)
		}
	})

	t.Run("write limits", func(t *testing.T) {
		// One client address: WriteLimit writes, then 429, counted
		// before the body is read.
		inOneMinute(t, func(int) error {
			c := r.client()
			for i := range server.WriteLimit + 1 {
				a := r.do(c, "POST", registry.BundlesPath, []byte(`{}`))
				if i < server.WriteLimit && a.status == 429 || i == server.WriteLimit && (a.status != 429 || a.code() != "rate_limited") {
					return fmt.Errorf("write %d from one address: %d %s", i+1, a.status, a.body)
				}
			}
			return nil
		})
		// One signing key from many addresses: the same.
		before := r.state()
		inOneMinute(t, func(attempt int) error {
			signed := registrytest.Sign(t, registrytest.Key(byte(40+attempt)), registrytest.Fixture(t, "redacted-transcript_pii.v0.json"))
			for i := range server.WriteLimit + 1 {
				a := r.post(registry.BundlesPath, signed)
				if i < server.WriteLimit && a.status != 200 || i == server.WriteLimit && a.status != 429 {
					return fmt.Errorf("publish %d by one key: %d %s", i+1, a.status, a.body)
				}
			}
			return nil
		})
		r.unchanged(t, "the writes over the limit", before)
	})

	t.Run("the command line", func(t *testing.T) {
		wg.Wait()
		if cliErr != nil {
			t.Fatal(cliErr)
		}
		dir := t.TempDir()
		key := filepath.Join(dir, "cli.key")
		der, err := x509.MarshalPKCS8PrivateKey(registrytest.Key(6).Key)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		// The full export, unsigned: publish signs it.
		bundle := filepath.Join(dir, "full.skill.json")
		full := registrytest.Exported(t, v, "valid-skill-bundle.v0.json", "full", registrytest.Key(6))
		if err := os.WriteFile(bundle, full, 0o644); err != nil {
			t.Fatal(err)
		}
		run := func(args ...string) (int, string) {
			cmd := exec.Command(cli, args...)
			cmd.Env = append(os.Environ(), "WORKBENCH_REGISTRY="+r.origin)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), string(out)
			}
			if err != nil {
				t.Fatal(err)
			}
			return 0, string(out)
		}
		fullHash := registrytest.ContentHash(t, full)
		// Key(4) published this content in "listing": the registry keeps
		// that copy, and the command says so.
		code, out := run("publish", "--key", key, bundle)
		if code != 0 || !strings.Contains(out, "content hash   "+fullHash) || !strings.Contains(out, "already held this content signed by key "+signature.KeyID(registrytest.Key(4).Public())) ||
			!strings.Contains(out, "import page    "+r.origin+"/import?from=") {
			t.Errorf("publish: exit %d\n%s", code, out)
		}
		code, out = run("withdraw", "--key", key, fullHash)
		if code != 1 || !strings.Contains(out, "withdrawal_forged") {
			t.Errorf("withdrawing another key's bundle: exit %d\n%s", code, out)
		}
		before := r.state()
		unredacted := filepath.Join(dir, "none.skill.json")
		if err := os.WriteFile(unredacted, registrytest.Fixture(t, "valid-skill-bundle.v0.json"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out = run("publish", "--key", key, "--registry", r.origin, unredacted)
		if code != 1 || !strings.Contains(out, "nothing was sent") || !strings.Contains(out, "/evidence/redaction_profile") {
			t.Errorf("publishing an unredacted bundle: exit %d\n%s", code, out)
		}
		r.unchanged(t, "the command line's refused publish", before)
		// A bundle of its own: published, then withdrawn by its key.
		own := filepath.Join(dir, "own.skill.json")
		ownBytes := registrytest.Exported(t, v, "redacted-transcript_pii.v0.json", "full", registrytest.Key(6))
		if err := os.WriteFile(own, ownBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out := run("publish", "--key", key, own); code != 0 || strings.Contains(out, "already held") {
			t.Errorf("publish: exit %d\n%s", code, out)
		}
		ownHash := registrytest.ContentHash(t, ownBytes)
		if code, out := run("withdraw", "--key", key, ownHash); code != 0 || !strings.Contains(out, "withdrawn ") {
			t.Errorf("withdraw: exit %d\n%s", code, out)
		}
		if a := r.get(registry.SkillsPath + "/" + ownHash); !bytes.Contains(a.body, []byte(`"withdrawn_at":"`)) {
			t.Errorf("after the command line's withdrawal: %s", a.body)
		}
	})

	t.Run("the index as D1 holds it", func(t *testing.T) {
		out, err := exec.Command(bin, "d1", "execute", "REGISTRY_DB", "--local", "--persist-to", filepath.Join(r.tmp, "state"),
			"--config", filepath.Join(r.tmp, "wrangler.toml"), "--json",
			"--command", "SELECT content_hash, signer_key_id, withdrawn_at IS NOT NULL AS withdrawn FROM bundles ORDER BY content_hash").Output()
		if err != nil {
			t.Fatalf("wrangler d1 execute: %v\n%s", err, out)
		}
		var res []struct {
			Results []struct {
				ContentHash string `json:"content_hash"`
				Signer      string `json:"signer_key_id"`
				Withdrawn   int    `json:"withdrawn"`
			} `json:"results"`
		}
		if err := json.Unmarshal(out, &res); err != nil || len(res) != 1 {
			t.Fatalf("%v\n%s", err, out)
		}
		rows := res[0].Results
		withdrawn := 0
		for _, row := range rows {
			withdrawn += row.Withdrawn
		}
		if len(rows) != 4 || withdrawn != 2 {
			t.Errorf("D1 holds %d rows, %d withdrawn; want 4, 2: %s", len(rows), withdrawn, out)
		}
		blobs := r.state().blobs
		if len(blobs) != len(rows) {
			t.Errorf("R2 holds %d objects for %d entries", len(blobs), len(rows))
		}
	})

	t.Run("no bindings", func(t *testing.T) {
		// The suite's shared Worker runs without the registry's bucket
		// and database (startDevWith).
		for _, c := range []struct{ method, path string }{
			{"GET", registry.SkillsPath}, {"POST", registry.BundlesPath}, {"GET", registry.BundlesPath + "/" + hash},
		} {
			req, _ := http.NewRequest(c.method, d.origin+c.path, bytes.NewReader(published))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 501 || !bytes.Contains(b, []byte(`"registry_unavailable"`)) ||
				!bytes.Contains(b, []byte("REGISTRY_BUCKET")) || !bytes.Contains(b, []byte("REGISTRY_DB")) {
				t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, b)
			}
		}
		resp, err := http.Get(d.origin + registry.MountPath)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var st registry.Status
		if err := json.Unmarshal(b, &st); resp.StatusCode != 200 || err != nil || st.Available ||
			!strings.Contains(st.Reason, "REGISTRY_BUCKET") || !strings.Contains(st.Reason, "REGISTRY_DB") {
			t.Errorf("the status: %d %s", resp.StatusCode, b)
		}
		// Nothing else breaks: every other test of the suite runs on
		// this Worker.
	})
}

// withoutRegistry is the edit of wrangler.toml that leaves out the
// registry's bucket and database.
func withoutRegistry() map[string]string {
	b, err := os.ReadFile("../wrangler.toml")
	if err != nil {
		return nil
	}
	s := string(b)
	start := strings.Index(s, "[[r2_buckets]]")
	end := strings.Index(s, "# Registry writes")
	if start < 0 || end < start {
		return map[string]string{"[[r2_buckets]] and [[d1_databases]] in wrangler.toml": ""}
	}
	return map[string]string{s[start:end]: ""}
}

// inOneMinute runs f, which spends a rate-limiting budget, within one
// minute of the clock, as the binding counts (docs/decisions.md, "Cloudflare
// Pages"): it starts f in the first half of a minute, and runs it once
// more, with attempt 1 (a fresh client or key), when the run crossed into
// the next minute, whose budget is a new one.
func inOneMinute(t *testing.T, f func(attempt int) error) {
	t.Helper()
	for attempt := range 2 {
		if now := time.Now(); now.Sub(now.Truncate(time.Minute)) > 30*time.Second {
			time.Sleep(now.Truncate(time.Minute).Add(time.Minute + 100*time.Millisecond).Sub(now))
		}
		window := time.Now().Truncate(time.Minute)
		err := f(attempt)
		if time.Now().Truncate(time.Minute) == window {
			if err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Logf("the run crossed into the next minute (%v); once more", err)
	}
	t.Fatal("both runs crossed a minute boundary")
}

// BenchmarkWorkerdPublishCPU is BenchmarkWorkerdCPU's measure for the
// registry's program under wrangler dev with local R2 and D1: the CPU
// time of workerd per request, for a publish and for a listing. Each
// publish is the same content signed by another key from another address
// (so that the write limits never answer), which the registry verifies
// in full (Admit) and then answers with the first signer's entry: the
// verifier's start-up and the verification, one D1 read, no write.
func BenchmarkWorkerdPublishCPU(b *testing.B) {
	requireWorker(b)
	bin := os.Getenv("WORKBENCH_WRANGLER")
	r := startRegistryDev(b, bin)
	r.migrate(bin)
	// Signing runs in the test's process, whose CPU is not counted.
	again := func(data []byte) func(int) reply {
		if a := r.post(registry.BundlesPath, registrytest.Sign(b, registrytest.Key(1), data)); a.status != 200 {
			b.Fatalf("the first publish: %d %s", a.status, a.body)
		}
		return func(i int) reply {
			return r.post(registry.BundlesPath, registrytest.Sign(b, registrytest.Key(byte(2+i%250)), data))
		}
	}
	fixture := registrytest.Fixture(b, "redacted-transcript_pii.v0.json")
	large := registrytest.Grown(b, registrytest.Verifier(b), 1500)
	for _, c := range []struct {
		name string
		send func(i int) reply
	}{
		{fmt.Sprintf("publish-again/bytes=%d", len(fixture)), again(fixture)},
		{fmt.Sprintf("publish-again/bytes=%d", len(large)), again(large)},
		{"listing", func(int) reply { return r.get(registry.SkillsPath) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			if a := c.send(0); a.status != 200 { // a warm instance
				b.Fatalf("%d %s", a.status, a.body)
			}
			before, err := workerdCPU(r.devServer)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if a := c.send(i + 1); a.status != 200 {
					b.Fatalf("request %d: %d %s", i, a.status, a.body)
				}
			}
			b.StopTimer()
			after, err := workerdCPU(r.devServer)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(after-before)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}
