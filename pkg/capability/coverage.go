package capability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// CoverageLedger is the name in the "ledger" member of
// capability-coverage.json.
const CoverageLedger = "capability-coverage"

// Coverage is the coverage ledger (capability-coverage.json at the
// repository root): which capabilities have a native workspace, and that
// every other one gets the generated workbench.
type Coverage struct {
	Ledger      string `json:"ledger"`
	Version     int    `json:"version"`
	Description string `json:"description"`
	// Default is what a capability not listed gets: "generated".
	Default string            `json:"default"`
	Native  []NativeWorkspace `json:"native"`
}

// NativeWorkspace is a capability handled by a route of its own.
type NativeWorkspace struct {
	CapabilityID string `json:"capability_id"`
	// Route is the app route, with {name} placeholders filled from the
	// capability's input members of the same name.
	Route     string `json:"route"`
	Workspace string `json:"workspace"`
	Why       string `json:"why"`
}

var placeholder = regexp.MustCompile(`\{([a-z_][a-z0-9_]*)\}`)

// ParseCoverage reads a ledger strictly: no unknown members, the ledger
// name and version 1, default "generated", each native entry with a
// capability id, a route starting with "/", and no capability listed
// twice. Errors name the member as a JSON pointer.
func ParseCoverage(data []byte) (*Coverage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Coverage
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("capability-coverage.json: %w", err)
	}
	bad := func(ptr, format string, args ...any) (*Coverage, error) {
		return nil, fmt.Errorf("capability-coverage.json: %s: %s", ptr, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Ledger != CoverageLedger:
		return bad("/ledger", "is %q, not %q", c.Ledger, CoverageLedger)
	case c.Version != 1:
		return bad("/version", "is %d; this build reads version 1", c.Version)
	case c.Default != "generated":
		return bad("/default", "is %q; every capability not listed gets the generated workbench", c.Default)
	}
	seen := map[string]bool{}
	for i, n := range c.Native {
		at := fmt.Sprintf("/native/%d", i)
		if _, _, ok := SplitID(n.CapabilityID); !ok {
			return bad(at+"/capability_id", "%q is not a capability id (source:name)", n.CapabilityID)
		}
		if seen[n.CapabilityID] {
			return bad(at+"/capability_id", "%s is listed twice", n.CapabilityID)
		}
		seen[n.CapabilityID] = true
		if !strings.HasPrefix(n.Route, "/") {
			return bad(at+"/route", "%q is not an app route", n.Route)
		}
		if n.Workspace == "" || n.Why == "" {
			return bad(at, "a native workspace says what it is and why it beats the generated form")
		}
	}
	return &c, nil
}

// Lookup returns the native workspace of a capability, if it has one.
func (c *Coverage) Lookup(id string) (NativeWorkspace, bool) {
	for _, n := range c.Native {
		if n.CapabilityID == id {
			return n, true
		}
	}
	return NativeWorkspace{}, false
}

// Placeholders lists the input members the route needs.
func (n NativeWorkspace) Placeholders() []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(n.Route, -1) {
		out = append(out, m[1])
	}
	return out
}

// Path fills the route's placeholders from input (a JSON object); a
// member that is missing or not a non-empty string is an error naming it.
func (n NativeWorkspace) Path(input json.RawMessage) (string, error) {
	m, err := object(input)
	if err != nil {
		return "", err
	}
	var missing []string
	path := placeholder.ReplaceAllStringFunc(n.Route, func(ph string) string {
		name := ph[1 : len(ph)-1]
		v, ok := m[name].(string)
		if !ok || v == "" {
			missing = append(missing, "/"+name)
			return ph
		}
		return url.PathEscape(v)
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%s needs %s in the input", n.Route, strings.Join(missing, ", "))
	}
	return path, nil
}
