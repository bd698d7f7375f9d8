package capability

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCatalogIsolatesAFailingSource(t *testing.T) {
	r := newRig(t, nil)
	dead := &MCPServer{Name: "gone"} // never connected
	cat, err := NewCatalog(append(providers(r), dead)...)
	if err != nil {
		t.Fatal(err)
	}
	l := cat.List(context.Background())
	if len(l.Failures) != 1 || l.Failures[0].Source != "mcp/gone" {
		t.Fatalf("failures %v", l.Failures)
	}
	var se *SourceError
	if !errors.As(l.Failures[0], &se) || !strings.Contains(se.Error(), "not connected") {
		t.Errorf("failure %v", l.Failures[0])
	}
	srcs := map[string]int{}
	for _, c := range l.Capabilities {
		srcs[c.Source]++
	}
	if srcs[SourceSimulator] != 10 || srcs[SourceWorkbench] != len(Actions()) {
		t.Errorf("listed %v", srcs)
	}
	if _, err := cat.Describe(context.Background(), "mcp/gone:x"); !errors.As(err, &se) {
		t.Errorf("describe on the failing source: %v", err)
	}
	if _, err := NewCatalog(dead, &MCPServer{Name: "gone"}); err == nil {
		t.Error("two providers of one source were accepted")
	}
}

func providers(r *rig) []Provider {
	return slices.Clone(r.gov.Catalog().providers)
}

func TestSplitID(t *testing.T) {
	tests := []struct {
		id, src, name string
		ok            bool
	}{
		{"workbench:verify", "workbench", "verify", true},
		{"mcp/everything:get-sum", "mcp/everything", "get-sum", true},
		{"mcp/x:a:b", "mcp/x", "a:b", true},
		{"nocolon", "", "", false},
		{":x", "", "", false},
		{"x:", "", "", false},
	}
	for _, tt := range tests {
		src, name, ok := SplitID(tt.id)
		if src != tt.src || name != tt.name || ok != tt.ok {
			t.Errorf("SplitID(%q) = %q %q %v", tt.id, src, name, ok)
		}
	}
}

func sample() []Capability {
	return []Capability{
		{ID: "workbench:verify", Name: "verify", Title: "Verify skill", Source: "workbench", Description: "Re-derive a proof", Availability: Unavailable},
		{ID: "simulator:file_read", Name: "file_read", Title: "file_read", Source: "simulator", Description: "Read a file", Availability: Available},
		{ID: "simulator:file_write", Name: "file_write", Title: "file_write", Source: "simulator", Description: "Write a file", Availability: Available},
		{ID: "mcp/everything:echo", Name: "echo", Title: "Echo Tool", Source: "mcp/everything", Description: "Echoes back the input", Availability: Available},
		{ID: "mcp/everything:get-sum", Name: "get-sum", Title: "Get Sum", Source: "mcp/everything", Description: "Adds two numbers", Availability: Degraded},
		{ID: "workbench:replay", Name: "replay", Title: "Replay skill", Source: "workbench", Description: "Replay and verify", Availability: Degraded},
	}
}

func TestFilterRanking(t *testing.T) {
	ix := NewIndex(sample())
	tests := []struct {
		query string
		want  []string
	}{
		{"echo", []string{"mcp/everything:echo"}},
		{"file", []string{"simulator:file_read", "simulator:file_write"}},
		{"write file", []string{"simulator:file_write"}},
		{"sum", []string{"mcp/everything:get-sum"}},
		{"everything", []string{"mcp/everything:echo", "mcp/everything:get-sum"}},
		{"SKILL", []string{"workbench:replay", "workbench:verify"}}, // degraded before unavailable
		{"proof", []string{"workbench:verify"}},                     // description only
		{"nothing-like-this", nil},
		{"", []string{"mcp/everything:echo", "simulator:file_read", "simulator:file_write", "mcp/everything:get-sum", "workbench:replay", "workbench:verify"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var got []string
			for _, i := range ix.Filter(tt.query) {
				got = append(got, ix.Capability(i).ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Filter(%q) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
	// A whole-name match outranks a prefix, which outranks a substring.
	ix = NewIndex([]Capability{
		{ID: "a:list_files", Name: "list_files", Title: "list_files", Availability: Available},
		{ID: "a:files", Name: "files", Title: "files", Availability: Available},
		{ID: "a:filesystem", Name: "filesystem", Title: "filesystem", Availability: Available},
	})
	var got []string
	for _, i := range ix.Filter("files") {
		got = append(got, ix.Capability(i).Name)
	}
	if !slices.Equal(got, []string{"files", "filesystem", "list_files"}) {
		t.Errorf("ranking %v", got)
	}
	// A capability's other actions are found by name.
	ix = NewIndex([]Capability{
		{ID: "incidents", Name: "open", Title: "Incidents", Availability: Available,
			Actions: []Action{{Name: "open"}, {Name: "resolve"}, {Name: "purge"}}},
		{ID: "a:purge_cache", Name: "purge_cache", Title: "purge_cache", Availability: Available},
	})
	got = nil
	for _, i := range ix.Filter("purge") {
		got = append(got, ix.Capability(i).ID)
	}
	if !slices.Equal(got, []string{"incidents", "a:purge_cache"}) { // equal scores: by title
		t.Errorf("by action name: %v", got)
	}
	if got := ix.Filter("resolv"); len(got) != 1 || ix.Capability(got[0]).ID != "incidents" {
		t.Errorf("by part of an action name: %v", got)
	}
}

// catalog500 is 500 capabilities shaped like real tool lists: names,
// titles and descriptions of a few dozen characters across 25 sources.
func catalog500() []Capability {
	verbs := []string{"get", "list", "create", "update", "delete", "search", "read", "write", "browser", "file"}
	nouns := []string{"issue", "page", "snapshot", "file", "directory", "commit", "branch", "user", "trace", "skill"}
	out := make([]Capability, 0, 500)
	for i := range 500 {
		v, n := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		name := fmt.Sprintf("%s_%s_%d", v, n, i)
		src := MCPSource(fmt.Sprintf("server%02d", i%25))
		out = append(out, Capability{
			ID: ID(src, name), Name: name, Source: src,
			Title:        strings.ToUpper(v[:1]) + v[1:] + " " + n,
			Description:  fmt.Sprintf("%s a %s on the connected service; returns the %s as structured content with its metadata.", v, n, n),
			Availability: []Availability{Available, Degraded, Unavailable}[i%3],
		})
	}
	return out
}

// BenchmarkFilter measures one keystroke: filtering and ranking 500
// capabilities for each prefix of a typed query.
func BenchmarkFilter(b *testing.B) {
	ix := NewIndex(catalog500())
	typed := "create file"
	b.ReportAllocs()
	for b.Loop() {
		for n := 1; n <= len(typed); n++ {
			ix.Filter(typed[:n])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(typed))/1e6, "ms/keystroke")
}

// BenchmarkIndex measures preparing 500 capabilities, done once per
// catalog refresh (opening the palette).
func BenchmarkIndex(b *testing.B) {
	caps := catalog500()
	b.ReportAllocs()
	for b.Loop() {
		NewIndex(caps)
	}
}
