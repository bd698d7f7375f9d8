//go:build !js

package openrouter

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"workbench/pkg/fetch"
	"workbench/pkg/fetch/fetchtest"
)

// A 307 from the API to another port of the same host is not followed,
// whatever sends the requests: net/http alone would resend the key there.
// The error names the status and the target, and never the key.
func TestRedirectIsNotFollowed(t *testing.T) {
	thief := fetchtest.NewCapture(t, respond(200, nil, okBody))
	api := fetchtest.NewRedirector(t, http.StatusTemporaryRedirect, thief.URL+"/api/v1/chat/completions")

	for _, tt := range []struct {
		name string
		opts []Option
	}{
		{"default client", nil},
		{"http.DefaultClient", []Option{WithHTTPClient(http.DefaultClient)}},
		{"a client of the caller's", []Option{WithHTTPClient(&http.Client{})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(testKey, append([]Option{WithBaseURL(api.URL + "/api/v1")}, tt.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range []func() error{
				func() error { _, err := c.Chat(context.Background(), simpleRequest); return err },
				func() error { _, err := c.ChatStream(context.Background(), simpleRequest, nil); return err },
				func() error { _, err := c.Key(context.Background()); return err },
			} {
				err := call()
				var re *fetch.RedirectError
				if !errors.As(err, &re) || re.Status != http.StatusTemporaryRedirect {
					t.Fatalf("error %v, want a refused 307", err)
				}
				for _, want := range []string{"307 Temporary Redirect", thief.URL, "not followed"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q lacks %q", err, want)
					}
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("the key is in the error: %v", err)
				}
			}
		})
	}
	if stolen := thief.Seen(); len(stolen) != 0 {
		t.Errorf("the other port got %d requests, Authorization %q", len(stolen), stolen)
	}
}
