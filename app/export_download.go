package main

import (
	"errors"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// download offers data to the user as a file called name: a Blob, an
// object URL for it and a click on a detached <a download>, then the URL
// is revoked a minute later. No script is injected and nothing is fetched: under the
// CSP's default-src 'self' an <a download href="blob:…"> is a download,
// which connect-src and the other fetch directives do not govern
// (checked in Chromium by the e2e tests).
func download(name string, data []byte) error {
	w := app.Window()
	if !w.Truthy() {
		return errors.New("download: no browser window")
	}
	arr := w.Get("Uint8Array").New(len(data))
	app.CopyBytesToJS(arr, data)
	blob := w.Get("Blob").New([]any{arr}, map[string]any{"type": "application/json"})
	url := w.Get("URL").Call("createObjectURL", blob).String()
	a := w.Get("document").Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", name)
	a.Call("click")
	// The download reads the blob after the click returns: keep the URL
	// alive a while, then release the memory.
	go func() {
		time.Sleep(time.Minute)
		w.Get("URL").Call("revokeObjectURL", url)
	}()
	return nil
}
