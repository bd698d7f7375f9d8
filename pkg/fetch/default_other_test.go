//go:build !js

package fetch

import (
	"net/http"
	"testing"
)

func TestDefaultIsNetHTTP(t *testing.T) {
	if d := Default(); d != http.DefaultClient {
		t.Fatalf("Default() = %v, want http.DefaultClient", d)
	}
}
