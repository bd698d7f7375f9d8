package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"workbench/pkg/capability/httpapi/altbackend"
	"workbench/pkg/capability/httpapi/conformance"
)

func invokes(alt *altbackend.Server) []string {
	var out []string
	for _, r := range alt.Requests() {
		if strings.HasSuffix(r.Path, "/invoke") {
			out = append(out, r.Path)
		}
	}
	return out
}

// The check invokes nothing without Invoke, and with it only a read-only
// capability whose preflight allows it.
func TestCheckInvokesOnlyWhenAskedAndOnlyReads(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		o       conformance.Options
		invoked int
	}{
		{"no flag", conformance.Options{Inputs: json.RawMessage(`{"query":"milk"}`)}, 0},
		{"a destructive capability", conformance.Options{Invoke: true, Capability: "notes.purge", Inputs: json.RawMessage(`{"folder":"x"}`)}, 0},
		{"a writing capability", conformance.Options{Invoke: true, Capability: "notes.create", Inputs: json.RawMessage(`{"title":"x"}`)}, 0},
		{"a read the preflight denies", conformance.Options{Invoke: true, Inputs: json.RawMessage(`{"query":"forbidden"}`)}, 0},
		{"a read the preflight allows", conformance.Options{Invoke: true, Inputs: json.RawMessage(`{"query":"milk"}`)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alt := altbackend.Start(t, time.Millisecond)
			rep, err := conformance.Check(ctx, alt.URL, nil, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := invokes(alt); len(got) != tt.invoked {
				t.Errorf("invoked %v, want %d invocations", got, tt.invoked)
			}
			if tt.invoked == 0 && rep.Count(conformance.Skipped) == 0 {
				t.Error("the report does not say the invocation was skipped")
			}
		})
	}
}

// A catalog the client refuses is a refused point and a failed check;
// the walk goes on to the routes it can still check.
func TestCheckReportsARefusedCatalog(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/capabilities":
			fmt.Fprint(w, `{"capabilities":[],"invoke":{"method":"POST","route":"/api/tools/{name}"}}`)
		case "/api/runs":
			fmt.Fprint(w, `{"runs":[]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	rep, err := conformance.Check(context.Background(), ts.URL, nil, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || rep.Count(conformance.Refused) != 1 || !strings.Contains(rep.Points[0].Detail, "/api/tools/{name}") {
		t.Errorf("report %+v", rep)
	}
	if rep.Count(conformance.Conforms) == 0 {
		t.Error("the routes after the catalog were not checked")
	}
	if _, err := conformance.Check(context.Background(), "ftp://x", nil, conformance.Options{}); err == nil {
		t.Error("a non-http origin was checked")
	}
}
