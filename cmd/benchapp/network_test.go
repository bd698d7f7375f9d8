package main

import (
	"strings"
	"testing"
)

func TestProfilesNamed(t *testing.T) {
	for _, tc := range []struct {
		list  string
		names []string
		err   string
	}{
		{"all", []string{"desktop", "4G"}, ""},
		{"desktop", []string{"desktop"}, ""},
		{"4g, desktop", []string{"4G", "desktop"}, ""},
		{"3G", nil, `no profile "3G" (have desktop, 4G, or all)`},
		{"desktop,", nil, `no profile ""`},
	} {
		got, err := profilesNamed(tc.list)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("profilesNamed(%q) error %v, want %q", tc.list, err, tc.err)
			}
			continue
		}
		var names []string
		for _, p := range got {
			names = append(names, p.Name)
		}
		if err != nil || strings.Join(names, ",") != strings.Join(tc.names, ",") {
			t.Errorf("profilesNamed(%q) = %v, %v; want %v", tc.list, names, err, tc.names)
		}
	}
}

// The profiles are the numbers.
func TestNetworkProfiles(t *testing.T) {
	want := map[string][2]float64{"desktop": {10e6, 40}, "4G": {9e6, 150}}
	for _, p := range networkProfiles {
		w, ok := want[p.Name]
		if !ok || p.Down != w[0] || float64(p.Latency.Milliseconds()) != w[1] {
			t.Errorf("%s: %.0f bit/s, %v; want %v", p.Name, p.Down, p.Latency, w)
		}
	}
}
