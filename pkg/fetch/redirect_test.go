//go:build !js

package fetch_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"workbench/pkg/fetch"
	"workbench/pkg/fetch/fetchtest"
)

// A redirect to another port of the same host is not followed: net/http
// alone would resend Authorization there. The error names the status and
// the target, and the caller's *http.Client is left as it was.
func TestNoRedirects(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			thief := fetchtest.NewCapture(t, nil)
			from := fetchtest.NewRedirector(t, status, thief.URL+"/steal")
			hc := &http.Client{}
			for _, d := range []fetch.Doer{fetch.NoRedirects(hc), fetch.NoRedirects(http.DefaultClient), fetch.NoRedirects(fetch.NoRedirects(hc))} {
				req, _ := http.NewRequest(http.MethodPost, from.URL+"/api", strings.NewReader(`{}`))
				req.Header.Set("Authorization", "Bearer sk-secret")
				resp, err := d.Do(req)
				if err == nil {
					resp.Body.Close()
					t.Fatalf("status %d followed or returned as a response", resp.StatusCode)
				}
				var re *fetch.RedirectError
				if !errors.As(err, &re) || re.Status != status || re.Location != thief.URL+"/steal" {
					t.Fatalf("error %v (%#v), want a RedirectError for %d to %s", err, re, status, thief.URL+"/steal")
				}
				for _, want := range []string{"POST " + from.URL + "/api", http.StatusText(status), thief.URL + "/steal", "not followed"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q lacks %q", err, want)
					}
				}
			}
			if got := thief.Seen(); len(got) != 0 {
				t.Errorf("the redirect target got %d requests (Authorization %q)", len(got), got)
			}
			if hc.CheckRedirect != nil {
				t.Error("NoRedirects changed the caller's client")
			}
		})
	}
}

// Without NoRedirects, net/http resends Authorization to another port of
// the same host: the hazard NoRedirects exists for. If this ever fails,
// net/http changed, not this package.
func TestNetHTTPResendsAuthorizationAcrossPorts(t *testing.T) {
	thief := fetchtest.NewCapture(t, nil)
	from := fetchtest.NewRedirector(t, http.StatusTemporaryRedirect, thief.URL+"/steal")
	req, _ := http.NewRequest(http.MethodGet, from.URL, nil)
	req.Header.Set("Authorization", "Bearer sk-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := thief.Seen(); len(got) != 1 || got[0] != "Bearer sk-secret" {
		t.Errorf("the other port got Authorization %q", got)
	}
}

// Answers that are not redirects pass through, 304 and 300 included.
func TestNoRedirectsPassesOtherStatuses(t *testing.T) {
	for _, status := range []int{200, 204, 300, 304, 404, 500} {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
		resp, err := fetch.NoRedirects(s.Client()).Do(must(http.NewRequest(http.MethodGet, s.URL, nil)))
		if err != nil {
			t.Errorf("%d: %v", status, err)
		} else {
			if resp.StatusCode != status {
				t.Errorf("status %d, want %d", resp.StatusCode, status)
			}
			resp.Body.Close()
		}
		s.Close()
	}
}

func must(r *http.Request, err error) *http.Request {
	if err != nil {
		panic(err)
	}
	return r
}
