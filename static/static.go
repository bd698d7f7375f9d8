// Package static holds files the workbench publishes as they are: its PULSE
// loop manifest (spec §9) and its [&] capability declaration (spec §10).
// They are embedded so that the engine can carry the manifest in every
// evidence bundle (pulse_manifest_snapshot) and its tests can hold the code
// to what the files declare; a site serving static/ publishes them as they
// are.
//
// Both files are I-JSON. The PULSE manifest validates against PULSE's
// loop-manifest schema v0.1, which is stricter than the spec's example
// (package pulse's tests hold it to that).
package static

import "embed"

// File names, relative to this directory.
const (
	PulseManifestFile = "pulse-manifest.v0.1.json"
	AmpersandFile     = "workbench.ampersand.json"
)

//go:embed pulse-manifest.v0.1.json workbench.ampersand.json
var files embed.FS

// PulseManifest returns the bytes of the workbench's PULSE loop manifest.
func PulseManifest() []byte { return read(PulseManifestFile) }

// Ampersand returns the bytes of the workbench's [&] capability
// declaration.
func Ampersand() []byte { return read(AmpersandFile) }

func read(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		// Both names are embedded above; the build fails without them.
		panic("static: " + err.Error())
	}
	return b
}
