// Package conformance walks a live capability backend through the HTTP
// contract of the capability workbench document and says, point by
// point, what conforms to the published schemas (schemas.CapabilityIDs),
// what the client (package capability/httpapi) tolerates although it
// departs from them, and what the client refuses. It is the engine of `workbench
// capabilities check`, for backend authors.
//
// The walk reads the catalog, every descriptor, one preflight, the runs
// list and, when the catalog declares one, the approvals list (the
// document names none). It invokes nothing unless Options.Invoke is set,
// and then only a read-only action whose preflight allows it; that run is
// followed to its end. A catalog entry the client cannot use is reported
// as unusable and does not fail the check: the client lists the others.
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/policy"
	"workbench/pkg/runs"
	"workbench/pkg/skill"
	"workbench/schemas"
)

// Verdicts of a Point.
const (
	Conforms  = "conforms"  // as the published schema says
	Tolerated = "tolerated" // not as published, but the client reads it
	Refused   = "refused"   // the client cannot use it
	Skipped   = "skipped"   // not checked, and why
	// Unusable is a catalog entry the client cannot use: it says why and
	// lists the other entries, so the check does not fail on it.
	Unusable = "unusable"
)

// Point is one thing checked.
type Point struct {
	Verdict string `json:"verdict"`
	// What names the route or the part: "catalog", "descriptor of x" …
	What   string `json:"what"`
	Detail string `json:"detail,omitempty"`
}

// Report is the outcome of a check.
type Report struct {
	Backend string  `json:"backend"`
	Points  []Point `json:"points"`
}

// OK reports whether the client refuses nothing of the backend.
func (r Report) OK() bool {
	for _, p := range r.Points {
		if p.Verdict == Refused {
			return false
		}
	}
	return true
}

// Count counts the points with the verdict.
func (r Report) Count(verdict string) int {
	n := 0
	for _, p := range r.Points {
		if p.Verdict == verdict {
			n++
		}
	}
	return n
}

// Options configure a check.
type Options struct {
	// Invoke allows one invocation of a read-only capability and the
	// follow of its run. Off, nothing is invoked.
	Invoke bool
	// Capability is the capability to preflight (and, with Invoke,
	// invoke), Action the action of it (empty: its first read-only
	// action, else its first), and Inputs its inputs; empty: the first
	// available capability with a read-only action, with {}.
	Capability string
	Action     string
	Inputs     json.RawMessage
	// Timeout bounds the follow of the invoked run (0: 30 s).
	Timeout time.Duration
}

type checker struct {
	base      string
	hc        *http.Client
	v         *schemas.Validator
	r         *Report
	approvals httpapi.ApprovalRoutes // the approvals surface the catalog declares
}

func (c *checker) add(verdict, what, detail string, args ...any) {
	if len(args) > 0 {
		detail = fmt.Sprintf(detail, args...)
	}
	c.r.Points = append(c.r.Points, Point{Verdict: verdict, What: what, Detail: detail})
}

// send sends one request and returns the answer's status and body.
func (c *checker) send(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, httpapi.MaxBodyBytes))
	return resp.StatusCode, data, err
}

// schema checks data against a published schema: Conforms, or Tolerated
// with the first problems when the client reads it anyway (decodeErr is
// nil), or Refused.
func (c *checker) schema(what, schemaID string, data []byte, decodeErr error, notes *httpapi.Notes) bool {
	var doc any
	jerr := json.Unmarshal(data, &doc)
	var verr error
	if jerr == nil {
		verr = c.v.Validate(schemaID, doc)
	}
	name := strings.TrimSuffix(strings.TrimPrefix(schemaID, "https://opensentience.org/spec/workbench-"), "/v0.1")
	switch {
	case decodeErr != nil:
		c.add(Refused, what, "%v", decodeErr)
		return false
	case jerr == nil && verr == nil:
		c.add(Conforms, what, "matches %s", name)
	default:
		c.add(Tolerated, what, "departs from %s: %s", name, firstLines(cmpErr(jerr, verr), 3))
	}
	seen := map[string]bool{}
	for _, n := range notes.List() {
		// One point per kind of departure, not one per entry or event.
		n = entryIndex.ReplaceAllString(n, "[…]")
		n = entryName.ReplaceAllString(n, "$1$2:")
		if !seen[n] {
			seen[n] = true
			c.add(Tolerated, what, "%s", n)
		}
	}
	return true
}

var (
	entryIndex = regexp.MustCompile(`\[\d+\]`)
	entryName  = regexp.MustCompile(`^(\S+) \([^)]*\)(\S*):`)
)

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func firstLines(err error, n int) string {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("(and %d more)", len(lines)-n))
	}
	return strings.Join(lines, "; ")
}

// Check walks the backend at origin (scheme and host) through the
// contract with hc (nil: a client with a 30 s timeout). An error means
// the check could not run at all (a bad origin); everything the backend
// answers, or fails to answer, is a point of the report.
func Check(ctx context.Context, origin string, hc *http.Client, o Options) (Report, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Report{}, fmt.Errorf("conformance: %q is not an http(s) origin", origin)
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	v, err := schemas.New()
	if err != nil {
		return Report{}, fmt.Errorf("conformance: %w", err)
	}
	base := u.Scheme + "://" + u.Host
	r := &Report{Backend: base}
	c := &checker{base: base, hc: hc, v: v, r: r}
	client, err := httpapi.New(base, hc)
	if err != nil {
		return Report{}, err
	}

	caps := c.catalog(ctx)
	for _, cp := range caps {
		c.descriptor(ctx, cp.ID)
	}
	target, err := pick(caps, o.Capability, o.Action)
	if err != nil {
		c.add(Skipped, "preflight", "%v", err)
	} else if target == nil {
		c.add(Skipped, "preflight", "no available capability with a read-only action to preflight (name one with --capability)")
	} else {
		in := o.Inputs
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		p := capability.Proposal{CapabilityID: target.ID, Action: target.Name, Input: in}
		pv, ok := c.preflight(ctx, *target, p)
		switch {
		case !o.Invoke:
			c.add(Skipped, "invoke", "nothing is invoked without --invoke")
		case target.Effect != policy.EffectRead:
			c.add(Skipped, "invoke", "%s is not read-only (%s): only read-only capabilities are invoked", name(*target), target.Effect)
		case !ok || pv.Decision != skill.DecisionAllow || !pv.Executable:
			c.add(Skipped, "invoke", "the preflight of %s does not allow it (decision %q: %s)", target.ID, pv.Decision, pv.Reason)
		default:
			c.invoke(ctx, client, name(*target), p, o.Timeout)
		}
	}
	c.runs(ctx)
	c.approvalsList(ctx)
	return *r, nil
}

// pick is the capability to preflight, as seen through the action to
// preflight: the one named, or the first available one with a read-only
// action; the action named, or its first read-only action, else its
// first.
func pick(caps []capability.Capability, id, action string) (*capability.Capability, error) {
	for _, cp := range caps {
		if id != "" && cp.ID != id || id == "" && cp.Availability != capability.Available {
			continue
		}
		name := action
		if name == "" {
			for _, a := range cp.ActionList() {
				if a.Effect == policy.EffectRead {
					name = a.Name
					break
				}
			}
			if name == "" && id == "" {
				continue
			}
		}
		seen, err := cp.Act(name)
		if err != nil {
			return nil, err
		}
		return &seen, nil
	}
	if id != "" {
		return nil, fmt.Errorf("the catalog lists no usable capability %q", id)
	}
	return nil, nil
}

// name names a capability's action in the report: the capability id, and
// the action when it has several.
func name(c capability.Capability) string {
	if len(c.Actions) > 1 {
		return c.ID + " (action " + c.Name + ")"
	}
	return c.ID
}

func (c *checker) catalog(ctx context.Context) []capability.Capability {
	const what = "catalog: GET " + httpapi.PathCapabilities
	status, data, err := c.send(ctx, http.MethodGet, httpapi.PathCapabilities, nil)
	if err != nil || status != http.StatusOK {
		c.add(Refused, what, "%s", failure(status, data, err))
		return nil
	}
	var n httpapi.Notes
	l, derr := httpapi.DecodeCatalog(data, &n)
	if !c.schema(what, schemas.CapabilityCatalog, data, derr, &n) {
		return nil
	}
	for _, f := range l.Failures {
		c.add(Conforms, what, "source %s reported as failed: %v", f.Source, f.Err)
	}
	for _, u := range l.Unusable {
		c.add(Unusable, fmt.Sprintf("catalog entry %d", u.Index)+idOf(u.ID), "%s", u.Reason)
	}
	actions := 0
	for _, cp := range l.Capabilities {
		actions += len(cp.ActionList())
	}
	c.add(Conforms, what, "%d usable capabilities, %d actions", len(l.Capabilities), actions)
	c.approvals, _ = httpapi.DecodeApprovalRoutes(data)
	return l.Capabilities
}

func idOf(id string) string {
	if id == "" {
		return ""
	}
	return " (" + id + ")"
}

func failure(status int, data []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	d := httpapi.DecodeError(data)
	msg := "HTTP " + strconv.Itoa(status)
	if d.Message != "" {
		msg += ": " + d.Message
	}
	return msg
}

func (c *checker) descriptor(ctx context.Context, id string) {
	what := "descriptor of " + id
	status, data, err := c.send(ctx, http.MethodGet, httpapi.PathCapabilities+"/"+url.PathEscape(id), nil)
	if err != nil || status != http.StatusOK {
		c.add(Refused, what, "%s", failure(status, data, err))
		return
	}
	raw := json.RawMessage(data)
	var n httpapi.Notes
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) == nil && top["capability"] != nil && top["capability_id"] == nil && top["id"] == nil {
		raw = top["capability"]
	}
	d, derr := httpapi.DecodeCapability(raw, &n, "descriptor")
	if derr == nil && d.ID != id {
		derr = fmt.Errorf("answers the descriptor of %q", d.ID)
	}
	if len(raw) != len(data) {
		c.add(Tolerated, what, "wrapped as {capability: …}; read as the descriptor")
	}
	c.schema(what, schemas.CapabilityDescriptor, data, derr, &n)
}

func (c *checker) preflight(ctx context.Context, cp capability.Capability, p capability.Proposal) (capability.Preview, bool) {
	what := "preflight of " + name(cp)
	body := httpapi.PreflightRequest{Action: cp.Name, Inputs: p.Input}
	status, data, err := c.send(ctx, http.MethodPost, httpapi.PathCapabilities+"/"+url.PathEscape(cp.ID)+"/preflight", body)
	if err != nil || status != http.StatusOK {
		c.add(Refused, what, "%s", failure(status, data, err))
		return capability.Preview{}, false
	}
	var n httpapi.Notes
	pv, derr := httpapi.DecodePreview(data, cp, &n)
	if !c.schema(what, schemas.CapabilityPreview, data, derr, &n) {
		return pv, false
	}
	c.add(Conforms, what, "decision %s, executable %v: %s", pv.Decision, pv.Executable, pv.Reason)
	return pv, true
}

func (c *checker) invoke(ctx context.Context, client *httpapi.Client, action string, p capability.Proposal, timeout time.Duration) {
	what := "invoke " + action
	body := httpapi.InvokeRequest{Action: p.Action, Inputs: p.Input}
	status, data, err := c.send(ctx, http.MethodPost, httpapi.PathCapabilities+"/"+url.PathEscape(p.CapabilityID)+"/invoke", body)
	if err != nil || status < 200 || status > 299 {
		c.add(Refused, what, "%s", failure(status, data, err))
		return
	}
	var n httpapi.Notes
	rc, derr := httpapi.DecodeReceipt(status, data, &n)
	if !c.schema(what, schemas.CapabilityInvokeAnswer, data, derr, &n) {
		return
	}
	c.add(Conforms, what, "HTTP %d, status %s, run %q", status, rc.Status, rc.RunID)
	if rc.RunID == "" {
		c.add(Skipped, "run follow", "the answer binds no run")
		return
	}
	c.page(ctx, rc.RunID)
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	fctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tl := runs.NewTimeline(0)
	st, err := runs.Replay(fctx, client, rc.RunID, tl, 50, nil)
	fw := "follow of run " + string(rc.RunID)
	switch {
	case err != nil:
		c.add(Refused, fw, "replay: %v", err)
		return
	case st.Terminal():
		c.add(Conforms, fw, "replayed %d events; the run ended %s", tl.Len(), st)
		return
	}
	res, err := runs.Follow(fctx, client, rc.RunID, tl, nil)
	switch {
	case err != nil:
		c.add(Refused, fw, "%v", err)
	case res.Outcome == runs.OutcomeReset:
		c.add(Tolerated, fw, "stream_reset: %s", res.Reason)
	default:
		c.add(Conforms, fw, "followed to a terminal event (%d events, %d resumes)", tl.Len(), res.Resumed)
	}
}

func (c *checker) page(ctx context.Context, run runs.RunID) {
	what := "events page of run " + string(run)
	status, data, err := c.send(ctx, http.MethodGet, httpapi.PathRuns+"/"+url.PathEscape(string(run))+"/events?after=0&limit=50", nil)
	if err != nil || status != http.StatusOK {
		c.add(Refused, what, "%s", failure(status, data, err))
		return
	}
	var n httpapi.Notes
	_, derr := httpapi.DecodePage(data, run, &n)
	c.schema(what, schemas.CapabilityEventsPage, data, derr, &n)
}

func (c *checker) runs(ctx context.Context) {
	const what = "runs: GET " + httpapi.PathRuns
	status, data, err := c.send(ctx, http.MethodGet, httpapi.PathRuns, nil)
	if err != nil || status != http.StatusOK {
		c.add(Refused, what, "%s", failure(status, data, err))
		return
	}
	var n httpapi.Notes
	list, derr := httpapi.DecodeRuns(data, &n)
	if c.schema(what, schemas.CapabilityRuns, data, derr, &n) {
		c.add(Conforms, what, "%d runs (the client sorts them newest first)", len(list))
	}
}

// approvalsList checks the approvals list the catalog declares; the
// document names none, so a catalog that declares none is not asked.
func (c *checker) approvalsList(ctx context.Context) {
	if c.approvals.List == "" {
		c.add(Conforms, "approvals", "none declared (optional): pending approvals are resumed by re-submission, and no approvals route is called")
		return
	}
	what := "approvals: GET " + c.approvals.List
	status, data, err := c.send(ctx, http.MethodGet, c.approvals.List, nil)
	switch {
	case err != nil || status != http.StatusOK:
		c.add(Refused, what, "%s", failure(status, data, err))
		return
	}
	var n httpapi.Notes
	_, derr := httpapi.DecodeApprovals(data, &n)
	c.schema(what, schemas.CapabilityApprovals, data, derr, &n)
}
