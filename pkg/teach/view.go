package teach

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/demonstrate"
	"workbench/pkg/pulse"
)

// View is what a person watching a demonstration sees of the body: for
// the simulator, the page its browser shows and its file tree; for any
// other body, its encoded state as indented JSON text. Every string in it
// is data from the body, to be shown as text.
type View struct {
	// Kind is the body's kind (body.KindSimulator, …).
	Kind body.Kind
	// URL is the address the browser shows; "" when no page is open.
	URL string
	// Page is the open page with its current field values; nil when none.
	Page *sim.PageView
	// Cwd, Dirs and Files are the host's working directory, directories
	// and files (path and size in bytes), sorted by path.
	Cwd   string
	Dirs  []string
	Files []FileInfo
	// Raw is the encoded state as indented JSON, set when the state is
	// not a simulator's.
	Raw string
}

// FileInfo is one file of the body's host.
type FileInfo struct {
	Path string
	Size int
}

// simState is the simulator's encoded state as package sim documents it:
// {"browser":{url,page},"host":{cwd,dirs,files},"web":…}.
type simState struct {
	Browser *struct {
		URL  string        `json:"url"`
		Page *sim.PageView `json:"page"`
	} `json:"browser"`
	Host *struct {
		Cwd   string   `json:"cwd"`
		Dirs  []string `json:"dirs"`
		Files []struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		} `json:"files"`
	} `json:"host"`
}

// Observe reads the body's state and returns its view. It is safe to call
// while a demonstration drives the same body from another goroutine when
// the body is safe for concurrent use, as the simulator is.
func Observe(ctx context.Context, b body.Body) (View, error) {
	st, err := b.State(ctx)
	if err != nil {
		return View{}, fmt.Errorf("teach: reading the body's state: %w", err)
	}
	data, err := json.Marshal(st)
	if err != nil {
		return View{}, fmt.Errorf("teach: encoding the body's state: %w", err)
	}
	v := View{Kind: b.Kind()}
	var s simState
	if b.Kind() == body.KindSimulator && json.Unmarshal(data, &s) == nil && s.Browser != nil && s.Host != nil {
		v.URL, v.Page = s.Browser.URL, s.Browser.Page
		v.Cwd, v.Dirs = s.Host.Cwd, s.Host.Dirs
		for _, f := range s.Host.Files {
			v.Files = append(v.Files, FileInfo{Path: f.Path, Size: len(f.Content)})
		}
		return v, nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "  "); err != nil {
		return View{}, fmt.Errorf("teach: the body's state is not JSON: %w", err)
	}
	v.Raw = out.String()
	return v, nil
}

// PulsePhase is the phase of the workbench's PULSE loop
// (static/pulse-manifest.v0.1.json) a step of a demonstration belongs to,
// by its demonstrate.Progress phase: authorizing an action is route;
// observing the body, asking the model, acting, answering and the end of
// the recording (its outcome signal) are act. Learn (crystallizing the
// draft) and consolidate (sealing and storing the bundle) come after the
// recording. An unknown step phase gives "".
func PulsePhase(step demonstrate.StepPhase) pulse.Phase {
	switch step {
	case demonstrate.PhaseAuthorize:
		return pulse.PhaseRoute
	case demonstrate.PhasePerceive, demonstrate.PhaseModel, demonstrate.PhaseAct, demonstrate.PhaseAnswer, demonstrate.PhaseStopped:
		return pulse.PhaseAct
	}
	return ""
}
