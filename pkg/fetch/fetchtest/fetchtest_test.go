//go:build !js

package fetchtest

import (
	"io"
	"net/http"
	"slices"
	"testing"

	"workbench/pkg/modtest"
)

func TestNoProductionImport(t *testing.T) {
	modtest.CheckImportedOnlyByTests(t, "workbench/pkg/fetch/fetchtest")
}

// TestRedirectToCapture follows a redirect with net/http, which resends
// Authorization to another port of the same host, and checks what each
// server did: the redirect names the target, and the capture records one
// Authorization per request and answers as told.
func TestRedirectToCapture(t *testing.T) {
	for _, tc := range []struct {
		name     string
		h        http.Handler
		status   int
		wantBody string
	}{
		{"default answer", nil, 200, "{}"},
		{"handler's answer", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusTeapot)
		}), http.StatusTeapot, "no\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCapture(t, tc.h)
			r := NewRedirector(t, http.StatusTemporaryRedirect, c.URL+"/to")
			for _, auth := range []string{"Bearer one", ""} {
				req, err := http.NewRequest(http.MethodGet, r.URL+"/from", nil)
				if err != nil {
					t.Fatal(err)
				}
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status || string(body) != tc.wantBody {
					t.Errorf("answer %d %q, want %d %q", resp.StatusCode, body, tc.status, tc.wantBody)
				}
				if resp.Request.URL.String() != c.URL+"/to" {
					t.Errorf("landed on %s, want %s", resp.Request.URL, c.URL+"/to")
				}
			}
			if got, want := c.Seen(), []string{"Bearer one", ""}; !slices.Equal(got, want) {
				t.Errorf("Seen() = %q, want %q", got, want)
			}
		})
	}
}
