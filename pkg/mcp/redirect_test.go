//go:build !js

package mcp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"workbench/pkg/fetch"
	"workbench/pkg/fetch/fetchtest"
	"workbench/pkg/mcp"
)

// A 307 from the MCP endpoint to another port of the same host is not
// followed, whatever sends the requests: net/http alone would resend the
// Authorization of Options.Header there. Dial fails with an error naming
// the status and the target.
func TestRedirectIsNotFollowed(t *testing.T) {
	thief := fetchtest.NewCapture(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not an MCP server", http.StatusBadRequest)
	}))
	endpoint := fetchtest.NewRedirector(t, http.StatusTemporaryRedirect, thief.URL+"/mcp")

	for _, tt := range []struct {
		name string
		hc   fetch.Doer
		pin  string
	}{
		{"default client", nil, ""},
		{"http.DefaultClient", http.DefaultClient, ""},
		{"session revision", &http.Client{}, mcp.ProtocolVersion},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcp.Dial(context.Background(), endpoint.URL+"/mcp", &mcp.Options{
				HTTPClient: tt.hc, ProtocolVersion: tt.pin,
				Header: http.Header{"Authorization": {"Bearer relay-secret"}},
			})
			var re *fetch.RedirectError
			if !errors.As(err, &re) || re.Status != http.StatusTemporaryRedirect || re.Location != thief.URL+"/mcp" {
				t.Fatalf("Dial: %v, want a refused 307 to %s", err, thief.URL+"/mcp")
			}
			for _, want := range []string{"mcp: ", "307 Temporary Redirect", thief.URL, "not followed"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
	if stolen := thief.Seen(); len(stolen) != 0 {
		t.Errorf("the other port got %d requests, Authorization %q", len(stolen), stolen)
	}
}
