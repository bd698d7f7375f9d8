package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/capability"
	"workbench/pkg/runs"
	"workbench/pkg/words"
)

// runFile is a file a run made (an export's bundle), as its tool_result
// event names it: the run view downloads it — at once for the run just
// invoked from the palette, the same download as the skill page's export
// dialog, or when the user asks. The bytes come from the backend that ran
// the action (capability.FileSource); one that cannot hand them over is
// said to be one, so a run never reads as done without its file.
//
// claim is the palette's: it reports, once, that the run's file is to be
// downloaded without asking (the user invoked the action just now).
type runFile struct {
	app.Compo
	ownContext

	env   *env
	claim func(run runs.RunID) bool

	Run   runs.RunID
	Name  string
	Bytes int

	fetching bool
	done     bool
	err      string
}

// eventFile is the file a tool_result event's data names, if any.
func eventFile(e runs.Event) (name string, size int, ok bool) {
	var d struct {
		File *struct {
			Name  string `json:"name"`
			Bytes int    `json:"bytes"`
		} `json:"file"`
	}
	if e.Type != runs.EventToolResult || json.Unmarshal(e.Data, &d) != nil || d.File == nil || d.File.Name == "" {
		return "", 0, false
	}
	return d.File.Name, d.File.Bytes, true
}

func (f *runFile) OnMount(ctx app.Context) {
	f.keep(ctx)
	if f.claim != nil && f.claim(f.Run) {
		f.fetch()
	}
}

func (f *runFile) onDownload(ctx app.Context, e app.Event) { f.fetch() }

// fetch asks the backend for the run's file and offers it as a download.
func (f *runFile) fetch() {
	if f.fetching {
		return
	}
	ctx := f.own()
	f.fetching, f.err = true, ""
	run := f.Run
	ctx.Async(func() {
		cx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		be, _, err := f.env.capabilityBackend(cx)
		var file capability.File
		if err == nil {
			src, ok := be.(capability.FileSource)
			if !ok {
				err = errors.New("this backend hands over no files: the capability document names no route for them, so the file stays on the backend")
			} else {
				file, err = src.File(cx, run)
			}
		}
		if err == nil {
			err = download(file.Name, file.Data)
		}
		ctx.Dispatch(func(app.Context) {
			f.fetching = false
			if err != nil {
				f.err = "The run made " + f.Name + ", but it could not be downloaded: " + describeErr(err)
				return
			}
			f.done = true
		})
	})
}

func (f *runFile) Render() app.UI {
	size := words.Count(f.Bytes, "byte")
	p := app.P().Class("pal-run-file").DataSet("run", string(f.Run))
	switch {
	case f.err != "":
		return app.Div().Body(
			app.P().Class("pal-error pal-run-file-error").Role("alert").Text(f.err),
			app.Button().Class("secondary pal-run-file-get").OnClick(f.onDownload).Text("Try again"),
		)
	case f.fetching:
		return p.Text(fmt.Sprintf("Downloading %s (%s)…", f.Name, size))
	case f.done:
		return p.Body(
			app.Text("Downloaded "), app.Code().Class("pal-run-file-name").Text(f.Name), app.Text(fmt.Sprintf(" (%s). ", size)),
			app.Button().Class("secondary pal-run-file-get").OnClick(f.onDownload).Text("Download again"),
		)
	}
	return p.Body(
		app.Text("The run made "), app.Code().Class("pal-run-file-name").Text(f.Name), app.Text(fmt.Sprintf(" (%s). ", size)),
		app.Button().Class("pal-run-file-get").OnClick(f.onDownload).Text("Download "+f.Name),
	)
}
