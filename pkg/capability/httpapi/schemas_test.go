package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/schemas"
)

// tap records every answer's body by request.
type tap struct {
	mu   sync.Mutex
	seen []tapped
}

type tapped struct {
	method, path string
	status       int
	body         []byte
}

func (tp *tap) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		return resp, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	tp.mu.Lock()
	tp.seen = append(tp.seen, tapped{r.Method, r.URL.Path, resp.StatusCode, body})
	tp.mu.Unlock()
	return resp, nil
}

// schemaOf names the published schema of an answer.
func schemaOf(method, path string, status int) string {
	switch {
	case status >= 300:
		return schemas.CapabilityError
	case path == httpapi.PathCapabilities:
		return schemas.CapabilityCatalog
	case strings.HasSuffix(path, "/preflight"):
		return schemas.CapabilityPreview
	case strings.HasSuffix(path, "/invoke"):
		return schemas.CapabilityInvokeAnswer
	case strings.HasPrefix(path, httpapi.PathCapabilities+"/"):
		return schemas.CapabilityDescriptor
	case path == httpapi.PathRuns:
		return schemas.CapabilityRuns
	case strings.HasSuffix(path, "/events"):
		return schemas.CapabilityEventsPage
	case path == httpapi.PathApprovals:
		return schemas.CapabilityApprovals
	}
	return ""
}

// The published schemas are what the conformance server sends and the
// client sends: every request and answer of a whole session validates.
func TestConformanceServerSpeaksThePublishedSchemas(t *testing.T) {
	s := start(t, nil)
	tp := &tap{}
	c, err := httpapi.New(s.srv.URL, &http.Client{Transport: tp})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	write := capability.Proposal{CapabilityID: "simulator:file_write", Input: json.RawMessage(`{"path":"a.txt","content":"x"}`), Target: "a.txt", Confirmed: true}
	c.Describe(ctx, write.CapabilityID)
	c.Preflight(ctx, write)
	rc, err := c.Invoke(ctx, write)
	if err != nil {
		t.Fatal(err)
	}
	c.Approvals(ctx)
	c.Invoke(ctx, capability.Pending{Proposal: write, Receipt: rc}.Resume()) // 409 approval_pending
	s.gov.Grant(rc.ApprovalID)
	ran, err := c.Invoke(ctx, capability.Pending{Proposal: write, Receipt: rc}.Resume())
	if err != nil {
		t.Fatal(err)
	}
	followToEnd(t, c, ran.RunID)
	c.Runs(ctx, "")
	c.Events(ctx, ran.RunID, 0, 2)
	c.Invoke(ctx, capability.Proposal{CapabilityID: "simulator:file_read", Input: json.RawMessage(`{}`)}) // 422

	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	validate := func(schema, what string, data []byte) {
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
		if err := v.Validate(schema, doc); err != nil {
			t.Errorf("%s does not validate against %s:\n%v\n%s", what, schema, err, data)
		}
	}
	kinds := map[string]bool{}
	for _, a := range tp.seen {
		schema := schemaOf(a.method, a.path, a.status)
		if schema == "" {
			t.Errorf("no schema for %s %s", a.method, a.path)
			continue
		}
		kinds[schema] = true
		validate(schema, a.method+" "+a.path, a.body)
	}
	for _, q := range s.srv.Requests() {
		switch {
		case strings.HasSuffix(q.Path, "/preflight"):
			validate(schemas.CapabilityPreflightRequest, "the preflight request", q.Body)
			kinds[schemas.CapabilityPreflightRequest] = true
		case strings.HasSuffix(q.Path, "/invoke"):
			validate(schemas.CapabilityInvokeRequest, "the invoke request", q.Body)
			kinds[schemas.CapabilityInvokeRequest] = true
		}
	}
	// Each event of the run, as a follow sends it.
	p, err := s.gov.Log().Events(ctx, ran.RunID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Events {
		data, _ := json.Marshal(e)
		validate(schemas.CapabilityRunEvent, "event "+e.Type, data)
		kinds[schemas.CapabilityRunEvent] = true
	}
	for _, id := range schemas.CapabilityIDs() {
		if !kinds[id] {
			t.Errorf("the session exercised nothing of %s", id)
		}
	}
}
