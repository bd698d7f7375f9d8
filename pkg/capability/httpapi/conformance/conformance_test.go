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
	"workbench/pkg/capability/httpapi/opsbackend"
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

// A catalog the client cannot read is a refused point and a failed
// check; the walk goes on to the routes it can still check. An invoke
// contract that names another route is tolerated, with what the client
// does instead.
func TestCheckReportsARefusedCatalog(t *testing.T) {
	catalog := `{"capabilities":"all of them"}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/capabilities":
			fmt.Fprint(w, catalog)
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
	if rep.OK() || rep.Count(conformance.Refused) != 1 || !strings.Contains(rep.Points[0].Detail, "not an array") {
		t.Errorf("report %+v", rep)
	}
	if rep.Count(conformance.Conforms) == 0 {
		t.Error("the routes after the catalog were not checked")
	}

	catalog = `{"capabilities":[],"invoke":{"method":"POST","route":"/api/tools/{name}"}}`
	rep, err = conformance.Check(context.Background(), ts.URL, nil, conformance.Options{})
	if err != nil || !rep.OK() {
		t.Fatalf("another invoke route: %+v %v", rep, err)
	}
	found := false
	for _, p := range rep.Points {
		found = found || p.Verdict == conformance.Tolerated && strings.Contains(p.Detail, "/api/tools/{name}") && strings.Contains(p.Detail, "only route this client invokes through")
	}
	if !found {
		t.Errorf("the other invoke route is not reported: %+v", rep)
	}
	if _, err := conformance.Check(context.Background(), "ftp://x", nil, conformance.Options{}); err == nil {
		t.Error("a non-http origin was checked")
	}
}

// Against the backend written with several actions per capability: the
// check passes, preflights and invokes the named read-only action, and
// calls no approvals route (it declares none).
func TestCheckPassesAgainstTheOpsBackend(t *testing.T) {
	ops := opsbackend.Start(t, time.Millisecond)
	rep, err := conformance.Check(context.Background(), ops.URL, nil, conformance.Options{
		Invoke: true, Capability: "logs", Inputs: json.RawMessage(`{"query":"disk"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Count(conformance.Unusable) != 0 {
		t.Errorf("report %+v", rep)
	}
	var text []string
	for _, p := range rep.Points {
		text = append(text, p.Verdict+" "+p.What+" "+p.Detail)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"4 usable capabilities, 7 actions", "preflight of logs (action search)", "invoke logs", "follow of run", "none declared"} {
		if !strings.Contains(all, want) {
			t.Errorf("the report lacks %q:\n%s", want, all)
		}
	}
	for _, r := range ops.Requests() {
		if strings.Contains(r.Path, "approvals") {
			t.Errorf("the check called %s %s", r.Method, r.Path)
		}
	}
}

// A malformed entry is unusable: reported, and the check still passes.
func TestUnusableEntriesDoNotFailTheCheck(t *testing.T) {
	alt := altbackend.Start(t, time.Millisecond)
	rep, err := conformance.Check(context.Background(), alt.URL, nil, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Count(conformance.Unusable) != 2 || rep.Count(conformance.Refused) != 0 {
		t.Errorf("report %+v", rep)
	}
}
