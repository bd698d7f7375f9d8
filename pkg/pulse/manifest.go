package pulse

import (
	"fmt"

	"workbench/pkg/canonjson"
	"workbench/static"
)

// Manifest returns the workbench's PULSE loop manifest (static/
// pulse-manifest.v0.1.json) as the generic value an evidence bundle carries
// in pulse_manifest_snapshot. Each call returns a fresh copy.
func Manifest() (map[string]any, error) {
	doc, err := canonjson.Parse(static.PulseManifest(), canonjson.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("pulse: %s: %w", static.PulseManifestFile, err)
	}
	var m map[string]any
	if err := doc.Decode(&m); err != nil {
		return nil, fmt.Errorf("pulse: %s: %w", static.PulseManifestFile, err)
	}
	return m, nil
}
