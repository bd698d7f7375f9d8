package sim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
)

// What the simulator shows an agent is the page the browser is on and the
// working directory's entries — never another page, another directory or
// what a file holds, all of which its State encodes.
func TestPerceive(t *testing.T) {
	v := validator(t)
	for _, tc := range []struct {
		name    string
		steps   []step
		url     string // the page shown, "" for none
		entries []string
		shows   []string // text the perception must hold
		hides   []string // text the state holds and the perception must not
	}{
		{
			name:    "no page open",
			entries: []string{"README.txt", "reports/"},
			hides:   []string{"Acme Cloud status", "Incident history", "On-call notes", "oncall-01", "Delayed webhook deliveries"},
		},
		{
			name:    "on the status page",
			steps:   []step{nav("https://status.workbench.test/")},
			url:     "https://status.workbench.test/",
			entries: []string{"README.txt", "reports/"},
			shows:   []string{"Acme Cloud status", "Incident details"},
			hides:   []string{"Incident history — Acme Cloud status", "faulty load balancer", "On-call notes", "oncall-01"},
		},
		{
			name:    "after cd and a write",
			steps:   []step{sh("cd reports"), sh("echo x > new.txt")},
			entries: []string{"2026-05-20-webhooks.txt", "new.txt"},
			hides:   []string{"README.txt", "Delayed webhook deliveries", "On-call notes"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := load(t, v, "status-and-host")
			run(t, s, tc.steps...)
			got, err := body.Perceive(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			p, ok := got.(sim.Perception)
			if !ok {
				t.Fatalf("Perceive gave a %T", got)
			}
			if p.Browser.URL != tc.url || (tc.url == "") != (p.Browser.Page == nil) {
				t.Errorf("browser on %q (page %v), want %q", p.Browser.URL, p.Browser.Page != nil, tc.url)
			}
			var names []string
			for _, e := range p.Host.Entries {
				n := e.Name
				if e.Type == "dir" {
					n += "/"
				}
				names = append(names, n)
			}
			if strings.Join(names, " ") != strings.Join(tc.entries, " ") {
				t.Errorf("entries %v, want %v", names, tc.entries)
			}
			seen, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.State(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			state, _ := json.Marshal(st)
			for _, w := range tc.shows {
				if !strings.Contains(string(seen), w) {
					t.Errorf("the perception lacks %q", w)
				}
			}
			for _, w := range tc.hides {
				if !strings.Contains(string(state), w) {
					t.Errorf("the state lacks %q: the check proves nothing", w)
				}
				if strings.Contains(string(seen), w) {
					t.Errorf("the perception shows %q, which the body does not show", w)
				}
			}
		})
	}
}
