// Package server is the skill registry's HTTP handler, mounted at
// registry.MountPath on the workbench's origin beside the OpenRouter proxy
// and the MCP relay (package proxy), under the same Host rule, the same
// Origin rule for writes and the same headers on every answer.
//
// It guarantees:
//
//   - Publishing (POST registry.BundlesPath) stores a bundle only when
//     registry.Admit takes it, and only once: the bytes under their content
//     hash in the Bucket, written when absent and never overwritten, then
//     the Entry in the Index. Publishing a hash the index holds is answered
//     with the stored entry and writes nothing.
//   - Withdrawing (POST registry.WithdrawalsPath) marks an entry withdrawn
//     only for a withdrawal registry.Withdrawal.Check accepts, once; the
//     bytes stay served.
//   - A refusal writes nothing: every check runs before the first write.
//   - Reads (the listing, an entry, a bundle's bytes) are public data:
//     answered to any origin (Access-Control-Allow-Origin: *), never with
//     a credential. A bundle's bytes are served as data
//     (application/json, Content-Disposition: attachment, the sandbox CSP
//     of /api/) and cached as immutable; only bytes whose entry the index
//     holds are served.
//   - Writes are counted per client address and per signing key by
//     Config.Limit before they touch storage.
//   - GET registry.MountPath is answered 200 with a registry.Status, with
//     storage or without. Without storage (Config.Unavailable) every
//     other request is answered 501 registry_unavailable, saying why.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/proxy"
	"workbench/pkg/registry"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Index is the registry's index of published bundles (D1 in the Worker,
// package registry/d1index).
type Index interface {
	// Entry returns the entry of hash; ok is false when there is none.
	Entry(ctx context.Context, hash string) (e registry.Entry, ok bool, err error)
	// Insert adds e unless an entry of its content hash exists; inserted
	// says which.
	Insert(ctx context.Context, e registry.Entry) (inserted bool, err error)
	// Withdraw marks the entry of hash withdrawn at at, keeping the
	// withdrawal's JSON, unless it is withdrawn already or absent;
	// changed says whether it did.
	Withdraw(ctx context.Context, hash, at string, withdrawal []byte) (changed bool, err error)
	// List returns at most q.Limit entries of q's listing, in its order.
	List(ctx context.Context, q registry.Query) ([]registry.Entry, error)
}

// Bucket holds the bundles' bytes under their content hashes (R2 in the
// Worker, package registry/r2bucket).
type Bucket interface {
	Exists(ctx context.Context, key string) (bool, error)
	Put(ctx context.Context, key string, data []byte) error
	// Get returns the bytes under key; ok is false when there are none.
	Get(ctx context.Context, key string) (data []byte, ok bool, err error)
}

// ErrNotReady is what an Index returns (wrapped) when its tables do not
// exist: the deployment's migrations have not been applied.
var ErrNotReady = errors.New("the registry's index has no tables")

// Config is what a Handler depends on.
type Config struct {
	// AllowedOrigin is the workbench's origin, or proxy.SameOrigin, as
	// for the proxy (proxy.Config.AllowedOrigin).
	AllowedOrigin string
	// Unavailable, when not empty, says why this deployment has no
	// registry; Index, Bucket and Verifier are then not used.
	Unavailable string
	Index       Index
	Bucket      Bucket
	// Verifier returns the verifier publishing admits bundles with. It
	// is called for a publish only: compiling the schemas costs more CPU
	// than any other request needs.
	Verifier func() (*verify.Verifier, error)
	// Limit counts one write against key ("ip:<address>", "signer:<key
	// id>") and reports whether it is within that key's budget; an error
	// fails the request closed (500).
	Limit func(ctx context.Context, key string) (bool, error)
	// Client names the client of r for Limit: its address.
	Client func(r *http.Request) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log, when non-nil, gets one Event per request.
	Log func(Event)
}

// Event is one handled request, for the log: no body, no query, no header
// value.
type Event struct {
	Method   string
	Route    string // "status", "publish", "withdraw", "list", "entry", "bundle", or "" when refused before routing
	Status   int
	Code     string // the error code; "" on success
	Duration time.Duration
}

// WriteLimit and WritePeriod are the write budget of one client address
// and of one signing key: the Worker's REGISTRY_RL binding (wrangler.toml)
// is configured with these numbers.
const (
	WriteLimit  = 10
	WritePeriod = 60 * time.Second
)

// Handler serves the registry; see the package documentation.
type Handler struct {
	cfg Config
}

// New checks cfg and returns its Handler.
func New(cfg Config) (*Handler, error) {
	if err := proxy.CheckAllowedOrigin(cfg.AllowedOrigin); err != nil {
		return nil, fmt.Errorf("registry: AllowedOrigin %q: %w", cfg.AllowedOrigin, err)
	}
	if cfg.Unavailable == "" {
		switch {
		case cfg.Index == nil || cfg.Bucket == nil:
			return nil, errors.New("registry: an Index and a Bucket are needed, or Unavailable saying why there are none")
		case cfg.Verifier == nil:
			return nil, errors.New("registry: no Verifier")
		case cfg.Limit == nil || cfg.Client == nil:
			return nil, errors.New("registry: no write Limit or Client")
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Handler{cfg: cfg}, nil
}

// apiError is an answer other than success.
type apiError struct {
	status   int
	code     string
	message  string
	problems []registry.Problem
}

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func fromRefusal(err error) *apiError {
	var ref *registry.Refusal
	if errors.As(err, &ref) {
		return &apiError{status: ref.Status, code: ref.Code, message: ref.Message, problems: ref.Problems}
	}
	return nil
}

// storageError is the answer to a failed Index or Bucket call.
func storageError(what string, err error) *apiError {
	if errors.Is(err, ErrNotReady) {
		return errorf(http.StatusServiceUnavailable, registry.CodeNotReady,
			"the registry's index has no tables yet: its operator applies the migrations (docs/registry.md, \"Deploying\")")
	}
	return errorf(http.StatusBadGateway, registry.CodeStorage, "the registry's %s failed; nothing was changed by this request", what)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ev := Event{Method: r.Method}
	status, e := h.serve(w, r, &ev)
	if e != nil {
		status = e.status
		ev.Code = e.code
		writeError(w, r, e)
	}
	ev.Status, ev.Duration = status, time.Since(start)
	if h.cfg.Log != nil {
		h.cfg.Log(ev)
	}
}

// serve answers r and returns the status written, or the error to write.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, ev *Event) (int, *apiError) {
	origin, pe := proxy.SiteOrigin(r, h.cfg.AllowedOrigin)
	if pe != nil {
		return 0, &apiError{status: pe.Status, code: pe.Code, message: pe.Message}
	}
	if len(r.Header.Values("Origin")) > 0 {
		// A browser's request carries the page's origin: only the
		// workbench's own page may write, and reads are public anyway.
		// A command line sends none.
		if pe := proxy.CheckRequestOrigin(r, origin); pe != nil && r.Method != http.MethodGet {
			return 0, &apiError{status: pe.Status, code: pe.Code, message: pe.Message}
		}
	}
	if r.URL.RawPath != "" || strings.Contains(r.URL.Path, "//") {
		return 0, errorf(http.StatusBadRequest, proxy.CodePath, "percent-encoding and empty segments are not allowed in a registry path")
	}
	rest, ok := strings.CutPrefix(r.URL.Path, registry.MountPath)
	if !ok {
		return 0, errorf(http.StatusNotFound, proxy.CodeNotFound, "not under %s", registry.MountPath)
	}
	route := func(name string, methods ...string) *apiError {
		ev.Route = name
		for _, m := range methods {
			if r.Method == m {
				return nil
			}
		}
		w.Header().Set("Allow", strings.Join(append(methods, "OPTIONS"), ", "))
		return errorf(http.StatusMethodNotAllowed, proxy.CodeMethod, "%s takes %s", r.URL.Path, strings.Join(methods, " or "))
	}
	if rest == "" && r.Method != http.MethodOptions {
		if e := route("status", http.MethodGet); e != nil {
			return 0, e
		}
		st := registry.Status{Available: h.cfg.Unavailable == ""}
		if !st.Available {
			st.Reason = "this deployment has no registry: " + h.cfg.Unavailable
		}
		return writeJSON(w, http.StatusOK, "no-cache", st)
	}
	if h.cfg.Unavailable != "" {
		return 0, errorf(http.StatusNotImplemented, registry.CodeUnavailable, "this deployment has no registry: %s", h.cfg.Unavailable)
	}
	if r.Method == http.MethodOptions {
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		proxy.SecureAPIHeaders(w.Header())
		w.WriteHeader(http.StatusNoContent)
		return http.StatusNoContent, nil
	}
	collection, item, hasItem := strings.Cut(rest, "/")
	if hasItem && !registry.ValidHash(item) {
		return 0, errorf(http.StatusBadRequest, proxy.CodePath, "%q is not a content hash (sha256: and 64 lowercase hex digits)", clip(item))
	}
	switch {
	case collection == "bundles" && !hasItem:
		if e := route("publish", http.MethodPost); e != nil {
			return 0, e
		}
		return h.publish(w, r)
	case collection == "bundles":
		if e := route("bundle", http.MethodGet); e != nil {
			return 0, e
		}
		return h.bundle(w, r, item)
	case collection == "skills" && !hasItem:
		if e := route("list", http.MethodGet); e != nil {
			return 0, e
		}
		return h.list(w, r)
	case collection == "skills":
		if e := route("entry", http.MethodGet); e != nil {
			return 0, e
		}
		return h.entry(w, r, item)
	case collection == "withdrawals" && !hasItem:
		if e := route("withdraw", http.MethodPost); e != nil {
			return 0, e
		}
		return h.withdraw(w, r, origin)
	}
	return 0, errorf(http.StatusNotFound, proxy.CodeNotFound, "no registry route %s; see docs/registry.md", clip(r.URL.Path))
}

// allow counts a write against key.
func (h *Handler) allow(ctx context.Context, key string) *apiError {
	ok, err := h.cfg.Limit(ctx, key)
	switch {
	case err != nil:
		return errorf(http.StatusInternalServerError, proxy.CodeMisconfigured, "the registry's write limit failed: %v", err)
	case !ok:
		kind := "client"
		if strings.HasPrefix(key, "signer:") {
			kind = "signing key"
		}
		return errorf(http.StatusTooManyRequests, proxy.CodeRateLimited,
			"more than %d registry writes in %s from this %s; retry after %d s", WriteLimit, WritePeriod, kind, int(WritePeriod/time.Second))
	}
	return nil
}

// readJSON reads a POST body of at most max bytes, which must be JSON.
func readJSON(r *http.Request, max int64, tooLarge string) ([]byte, *apiError) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, errorf(http.StatusUnsupportedMediaType, proxy.CodeMediaType, "Content-Type %q; want application/json", clip(r.Header.Get("Content-Type")))
	}
	if r.ContentLength > max {
		return nil, errorf(http.StatusRequestEntityTooLarge, tooLarge, "the body is %d bytes; at most %d are taken", r.ContentLength, max)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, errorf(http.StatusBadRequest, proxy.CodeBody, "reading the body: %v", err)
	}
	if int64(len(b)) > max {
		return nil, errorf(http.StatusRequestEntityTooLarge, tooLarge, "the body is over %d bytes", max)
	}
	return b, nil
}

func (h *Handler) publish(w http.ResponseWriter, r *http.Request) (int, *apiError) {
	ctx := r.Context()
	if e := h.allow(ctx, "ip:"+h.cfg.Client(r)); e != nil {
		return 0, e
	}
	body, e := readJSON(r, registry.MaxBundleBytes, registry.CodeTooLarge)
	if e != nil {
		return 0, e
	}
	v, err := h.cfg.Verifier()
	if err != nil {
		return 0, errorf(http.StatusInternalServerError, proxy.CodeMisconfigured, "the verifier: %v", err)
	}
	adm, err := registry.Admit(v, body)
	if err != nil {
		if e := fromRefusal(err); e != nil {
			return 0, e
		}
		return 0, errorf(http.StatusInternalServerError, registry.CodeInvalid, "%v", err)
	}
	hash := adm.Entry.ContentHash
	if e := h.allow(ctx, "signer:"+adm.Entry.SignerKeyID); e != nil {
		return 0, e
	}
	// Once published, the same answer and no write: the first signer's
	// entry stands, whoever signs the same content later.
	if old, ok, err := h.cfg.Index.Entry(ctx, hash); err != nil {
		return 0, storageError("index", err)
	} else if ok {
		return h.writeEntry(w, old)
	}
	// The bytes first, the entry second: an entry always names bytes
	// that are there. Bytes left by an insert that failed are the same
	// bytes, and are used, not written again.
	exists, err := h.cfg.Bucket.Exists(ctx, hash)
	if err != nil {
		return 0, storageError("bucket", err)
	}
	if !exists {
		if err := h.cfg.Bucket.Put(ctx, hash, adm.Data); err != nil {
			return 0, storageError("bucket", err)
		}
	}
	adm.Entry.PublishedAt = h.cfg.Now().UTC().Format(registry.TimeFormat)
	inserted, err := h.cfg.Index.Insert(ctx, adm.Entry)
	if err != nil {
		return 0, storageError("index", err)
	}
	if !inserted { // published meanwhile by another request
		old, ok, err := h.cfg.Index.Entry(ctx, hash)
		if err != nil || !ok {
			return 0, storageError("index", err)
		}
		return h.writeEntry(w, old)
	}
	return h.writeEntry(w, adm.Entry)
}

func (h *Handler) withdraw(w http.ResponseWriter, r *http.Request, origin string) (int, *apiError) {
	ctx := r.Context()
	if e := h.allow(ctx, "ip:"+h.cfg.Client(r)); e != nil {
		return 0, e
	}
	body, e := readJSON(r, registry.MaxWithdrawalBytes, registry.CodeWithdrawal)
	if e != nil {
		return 0, e
	}
	wd, err := registry.ParseWithdrawal(body)
	if err != nil {
		return 0, fromRefusal(err)
	}
	entry, ok, err := h.cfg.Index.Entry(ctx, wd.ContentHash)
	if err != nil {
		return 0, storageError("index", err)
	}
	if !ok {
		return 0, errorf(http.StatusNotFound, registry.CodeNotPublished, "%s is not published in this registry", wd.ContentHash)
	}
	if err := wd.Check(origin, entry); err != nil {
		return 0, fromRefusal(err)
	}
	if e := h.allow(ctx, "signer:"+entry.SignerKeyID); e != nil {
		return 0, e
	}
	at := h.cfg.Now().UTC().Format(registry.TimeFormat)
	changed, err := h.cfg.Index.Withdraw(ctx, wd.ContentHash, at, body)
	if err != nil {
		return 0, storageError("index", err)
	}
	if !changed { // withdrawn meanwhile by another request
		return 0, errorf(http.StatusConflict, registry.CodeAlreadyWithdrawn, "withdrawn by its signer already")
	}
	entry.WithdrawnAt = &at
	return h.writeEntry(w, entry)
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) (int, *apiError) {
	q, err := registry.ParseQuery(r.URL.Query())
	if err != nil {
		return 0, fromRefusal(err)
	}
	want := q.Limit
	q.Limit++ // one more says whether a next page exists
	entries, err := h.cfg.Index.List(r.Context(), q)
	if err != nil {
		return 0, storageError("index", err)
	}
	page := registry.Page{Skills: entries}
	if len(entries) > want {
		page.Skills = entries[:want]
		last := page.Skills[want-1]
		next := registry.Cursor{PublishedAt: last.PublishedAt, ContentHash: last.ContentHash}.String()
		page.NextCursor = &next
	}
	if page.Skills == nil {
		page.Skills = []registry.Entry{}
	}
	return writeJSON(w, http.StatusOK, "no-cache", page)
}

func (h *Handler) entry(w http.ResponseWriter, r *http.Request, hash string) (int, *apiError) {
	e, ok, err := h.cfg.Index.Entry(r.Context(), hash)
	if err != nil {
		return 0, storageError("index", err)
	}
	if !ok {
		return 0, errorf(http.StatusNotFound, registry.CodeNotPublished, "%s is not published in this registry", hash)
	}
	return writeJSON(w, http.StatusOK, "no-cache", e)
}

func (h *Handler) bundle(w http.ResponseWriter, r *http.Request, hash string) (int, *apiError) {
	ctx := r.Context()
	e, ok, err := h.cfg.Index.Entry(ctx, hash)
	if err != nil {
		return 0, storageError("index", err)
	}
	if !ok {
		return 0, errorf(http.StatusNotFound, registry.CodeNotPublished, "%s is not published in this registry", hash)
	}
	data, ok, err := h.cfg.Bucket.Get(ctx, hash)
	if err != nil {
		return 0, storageError("bucket", err)
	}
	if !ok {
		return 0, storageError("bucket", errors.New("an indexed bundle's bytes are missing"))
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Disposition", `attachment; filename="`+skill.ExportFilename(e.Slug, e.Version)+`"`)
	// The bytes under a content hash never change: a year, and never
	// asked again. A withdrawal changes the entry, not the bytes.
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	hd.Set("ETag", `"`+strings.TrimPrefix(hash, "sha256:")+`"`)
	hd.Set("Content-Length", strconv.Itoa(len(data)))
	public(hd)
	w.WriteHeader(http.StatusOK)
	w.Write(data)
	return http.StatusOK, nil
}

// public marks an answer readable by any origin and sets the /api/
// headers. Registry reads carry no credential and hold public data, so
// another workbench a person added this registry to may read them.
func public(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	proxy.SecureAPIHeaders(h)
}

func (h *Handler) writeEntry(w http.ResponseWriter, e registry.Entry) (int, *apiError) {
	w.Header().Set("Location", registry.SkillsPath+"/"+e.ContentHash)
	return writeJSON(w, http.StatusOK, "no-store", e)
}

func writeJSON(w http.ResponseWriter, status int, cache string, v any) (int, *apiError) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, errorf(http.StatusInternalServerError, "internal", "encoding the answer: %v", err)
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Cache-Control", cache)
	public(hd)
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
	return status, nil
}

// errorBody is the wire shape of an error: package proxy's, with the
// refusal's problems.
type errorBody struct {
	Error struct {
		Code     string             `json:"code"`
		Message  string             `json:"message"`
		Problems []registry.Problem `json:"problems,omitempty"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	var body errorBody
	body.Error.Code, body.Error.Message, body.Error.Problems = e.code, e.message, e.problems
	b, err := json.Marshal(body)
	if err != nil {
		b = []byte(`{"error":{"code":"internal","message":"encoding the error failed"}}`)
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	if e.status == http.StatusTooManyRequests {
		hd.Set("Retry-After", strconv.Itoa(int(WritePeriod/time.Second)))
	}
	if r.Method == http.MethodGet {
		public(hd)
	} else {
		proxy.SecureAPIHeaders(hd)
	}
	w.WriteHeader(e.status)
	w.Write(append(b, '\n'))
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
