//go:build js && wasm

package importworker

import "workbench/pkg/library"

// The operations the page asks for.
const (
	opImport  = "import"
	opResolve = "resolve"
)

// request is a message from the page: one file to import or resolve. Its
// bytes travel beside it, as a transferred Uint8Array ("data").
type request struct {
	ID     int            `json:"id"`
	Op     string         `json:"op"`
	Name   string         `json:"name"`
	Choice library.Choice `json:"choice,omitempty"`
}
