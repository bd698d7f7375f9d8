package main

import (
	"context"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// A component answers through the context it kept last: a page kept again
// on the next OnNav answers through that one, not the first.
func TestOwnContextKeepsTheLast(t *testing.T) {
	type key struct{}
	named := func(name string) app.Context {
		return app.Context{Context: context.WithValue(context.Background(), key{}, name)}
	}
	for _, tc := range []struct {
		name string
		kept []string
		want any
	}{
		{"none kept", nil, nil},
		{"kept on mount", []string{"mount"}, "mount"},
		{"kept again on the next navigation", []string{"mount", "nav"}, "nav"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p struct{ ownContext }
			for _, n := range tc.kept {
				p.keep(named(n))
			}
			got := p.own()
			if got.Context == nil {
				if tc.want != nil {
					t.Fatalf("own() is the zero context, want %q", tc.want)
				}
				return
			}
			if v := got.Value(key{}); v != tc.want {
				t.Errorf("own() is the context kept as %v, want %v", v, tc.want)
			}
		})
	}
}
