package main

import (
	"encoding/json"
	"strings"
	"testing"

	"workbench/pkg/runs"
)

func TestPaletteRunStatusAndLostEvents(t *testing.T) {
	if got := runStatus(false, false, runs.StateCompleted); got != "State: completed" {
		t.Errorf("finished run: %q", got)
	}
	if got := runStatus(false, false, ""); strings.Contains(got, "Replaying") {
		t.Errorf("a replayed run without a state reads %q", got)
	}
	if got := runStatus(true, false, ""); got != "Replaying" {
		t.Errorf("replaying: %q", got)
	}
	if got := lostEvents(1, 4); got != "Events 1–4 are no longer retained: the timeline starts at #5." {
		t.Errorf("%q", got)
	}
	if got := lostEvents(3, 3); !strings.HasPrefix(got, "Event 3 is") {
		t.Errorf("%q", got)
	}
}

// A tool_result that names a file is offered for download; the run just
// invoked from the dialog has its file downloaded once, without asking.
func TestPaletteRunFiles(t *testing.T) {
	for data, want := range map[string]string{
		`{"status":"ok","result":{},"file":{"name":"a.skill.json","bytes":12}}`: "a.skill.json",
		`{"status":"ok","result":{"file":"not this"}}`:                          "",
		`{"status":"ok","file":{"bytes":3}}`:                                    "",
	} {
		name, _, ok := eventFile(runs.Event{Type: runs.EventToolResult, Data: json.RawMessage(data)})
		if name != want || ok != (want != "") {
			t.Errorf("%s: %q %v", data, name, ok)
		}
	}
	if _, _, ok := eventFile(runs.Event{Type: runs.EventProgress, Data: json.RawMessage(`{"file":{"name":"x"}}`)}); ok {
		t.Error("a progress event names a file")
	}
	p := &palette{autoFile: "run-1"}
	if p.claimFile("run-2") || !p.claimFile("run-1") || p.claimFile("run-1") {
		t.Error("the file of the run just invoked is not claimed exactly once")
	}
}
