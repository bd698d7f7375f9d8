// Package sim is the simulator body (DESIGN §4): a deterministic,
// in-process stand-in for a browser and a host, driven through the same
// body.Body interface as the MCP bodies, so demonstration and replay run
// on it unchanged natively and inside the WebAssembly build.
//
// A simulator runs a World: data loaded from a world file (package
// fixtures holds the built-in ones) describing web pages with text, links
// and forms, and a file tree with a working directory. Its browser tools
// (browser_navigate, browser_snapshot, browser_click, browser_type,
// browser_submit) stand in for &body.browser; its host tools (file_list,
// file_read, file_write, file_delete, shell_exec) stand in for &body.os.
// What a form submission leads to is declared in the world as a lookup
// table or a text template: worlds hold no code.
//
// Guarantees:
//   - Determinism: the state after a sequence of calls depends only on the
//     world and the calls. State encodes the whole world — the browser's
//     page and form values, every page, the submission counters and the
//     file tree — and its canonical form, hence skill.StateHash, is the
//     same natively and in js/wasm.
//   - Honesty: tool annotations say which tools may change things, and
//     Effect says exactly what one call would change before it runs. A
//     call with arguments its input schema rejects, or naming a link,
//     field, page or file that does not exist, returns a Result with
//     IsError set and the reason, and changes nothing; the one exception
//     is a shell command that fails part way (rm a missing), whose result
//     lists what it changed before failing, as a real shell's would.
//   - Perception: State is the whole world, for hashing; what a model is
//     shown is Perceive (body.Perceiver) — the page the browser is on and
//     the working directory's entries, as a real browser and shell show
//     them.
//   - Isolation: a Sim owns its world. Clone gives an independent copy;
//     Reset returns to the world as loaded; Mutate edits the live world
//     between calls, for tests that change the world under a replay.
//
// A Sim is safe for concurrent use; calls are serialized.
package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"workbench/pkg/body"
	"workbench/schemas"
)

// Sim is a simulator body running one world.
type Sim struct {
	mu   sync.Mutex
	base *base

	world *World
	// url is the page the browser shows; "" when none is open. The page
	// itself is looked up in the live world, so an edit to it shows.
	url string
	// values holds what was typed into the current page's forms: form name
	// → field name → value. Loading a page clears it.
	values map[string]map[string]string
	// seqs counts submissions of template buttons.
	seqs map[seqKey]int
	// cache holds the encoded state and its parts, each nil when stale.
	cache encCache
}

// base is what a Sim shares with its clones; it never changes.
type base struct {
	initial *World
	tools   *toolSet
	v       *schemas.Validator
}

// seqKey names a template button: the page, form and button it belongs to.
type seqKey struct{ page, form, button string }

var (
	_ body.Body      = (*Sim)(nil)
	_ body.Perceiver = (*Sim)(nil)
)

// New loads a world file and returns a simulator showing its start page.
// The world is parsed strictly (I-JSON) and must match the world schema
// and the rules the schema cannot state (unique page URLs, links and
// lookups that lead to pages of the world, a sound file tree); an error is
// a *WorldError naming the JSON pointer of the offending value.
func New(world []byte) (*Sim, error) {
	v, err := schemas.New()
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	return NewWithValidator(world, v)
}

// NewWithValidator is New with an already compiled schema set, for callers
// that load many worlds.
func NewWithValidator(world []byte, v *schemas.Validator) (*Sim, error) {
	w, err := decodeWorld(world, v)
	if err != nil {
		return nil, err
	}
	ts, err := newToolSet()
	if err != nil {
		return nil, err
	}
	s := &Sim{base: &base{initial: w, tools: ts, v: v}}
	s.reset()
	return s, nil
}

// Kind is body.KindSimulator.
func (s *Sim) Kind() body.Kind { return body.KindSimulator }

// Server is "simulator": calls go to no MCP server.
func (s *Sim) Server() string { return string(body.KindSimulator) }

// Name is the world's name.
func (s *Sim) Name() string { return s.base.initial.Name }

// Tools lists the simulator's tools: the browser tools, then the host
// tools. The list is the same for every world and every state.
func (s *Sim) Tools(ctx context.Context) ([]body.Tool, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	specs := s.base.tools.specs
	// Copies all the way down: a caller editing its list cannot change
	// what the body reports. The schemas share one buffer and the hints
	// one array, each piece capped so that appending to it copies: the
	// list is asked for before every replayed edge, and a few allocations
	// cost less than one per piece.
	size := 0
	for _, sp := range specs {
		size += len(sp.tool.InputSchema)
	}
	out := make([]body.Tool, len(specs))
	buf := make([]byte, 0, size)
	hints := make([]bool, 0, 4*len(specs))
	for i, sp := range specs {
		t := sp.tool
		if t.InputSchema != nil {
			at := len(buf)
			buf = append(buf, t.InputSchema...)
			t.InputSchema = buf[at:len(buf):len(buf)]
		}
		a := &t.Annotations
		for _, h := range [...]**bool{&a.ReadOnlyHint, &a.DestructiveHint, &a.IdempotentHint, &a.OpenWorldHint} {
			if *h != nil {
				hints = append(hints, **h)
				*h = &hints[len(hints)-1]
			}
		}
		out[i] = t
	}
	return out, nil
}

// Call performs one tool call. An unknown tool is an error wrapping
// ErrUnknownTool, as an MCP server answers it with a protocol error;
// arguments the tool's input schema rejects, and actions that cannot be
// done in the current state, give a Result with IsError set that says why,
// and leave the state as it was.
func (s *Sim) Call(ctx context.Context, tool string, a map[string]any) (body.Result, error) {
	if err := ctx.Err(); err != nil {
		return body.Result{}, err
	}
	i, ok := s.base.tools.byName[tool]
	if !ok {
		return body.Result{}, fmt.Errorf("sim: %w: %q", ErrUnknownTool, tool)
	}
	if a == nil {
		a = map[string]any{}
	}
	if msg := checkArgs(s.base.tools.schemas[i], a); msg != "" {
		return failf("%s: invalid arguments: %s", tool, msg), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.base.tools.specs[i].run(s, args(a)), nil
}

// State returns the encoded state: a json.RawMessage holding the canonical
// (RFC 8785) JSON of the whole world as it is now (see the package doc).
// Equal situations encode to equal bytes.
func (s *Sim) State(ctx context.Context) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	enc, err := s.encoded()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(slices.Clone(enc)), nil
}

// StateHash is skill.StateHash of State, computed from the cached
// encoding without re-parsing it: the fast path for callers that know
// they drive a simulator.
func (s *Sim) StateHash() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateHash()
}

// Clone returns an independent simulator in the same state, sharing only
// what never changes (the world as loaded and the compiled tool schemas).
func (s *Sim) Clone() *Sim {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &Sim{base: s.base, world: s.world.clone(), url: s.url}
	c.values = make(map[string]map[string]string, len(s.values))
	for f, vals := range s.values {
		c.values[f] = cloneMap(vals)
	}
	c.seqs = cloneMap(s.seqs)
	c.cache = s.cache // the cached bytes are never written in place, only replaced
	return c
}

// Reset returns the simulator to the world as loaded, the browser on the
// start page with no typed values, and no submissions counted.
func (s *Sim) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset()
}

func (s *Sim) reset() {
	s.world = s.base.initial.clone()
	s.url = s.world.StartURL
	s.values = map[string]map[string]string{}
	s.seqs = map[seqKey]int{}
	s.changed(partAll)
}

// World returns a copy of the live world.
func (s *Sim) World() *World {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.world.clone()
}

// Mutate changes the live world: edit receives a copy of it, and when edit
// returns nil and the edited world is still valid, the copy becomes the
// live world. Otherwise the world is unchanged and the error (edit's own,
// or a *WorldError naming the pointer of what is invalid) is returned.
//
// The edited world must match the schema and keep URLs, names and the
// file tree sound, but its links and lookups may lead to pages that no
// longer exist, as on the real web; following one is a tool error. The
// browser stays on its URL and keeps the values typed into fields that
// still exist.
func (s *Sim) Mutate(edit func(w *World) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.world.clone()
	if err := edit(w); err != nil {
		return err
	}
	if err := validateWorld(w, s.base.v); err != nil {
		return err
	}
	w.normalize()
	s.world = w
	s.pruneValues()
	s.changed(partAll)
	return nil
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Perception is what the simulator shows an agent (body.Perceiver): the
// page the browser is on, with its current field values, and the host's
// working directory with its entries — names, kinds and sizes, not
// contents. Other pages, other directories and what files hold are not in
// it: no real browser or shell shows them without an action.
type Perception struct {
	Browser struct {
		// URL is the address the browser shows; "" before any page is open.
		URL string `json:"url"`
		// Page is nil when no page is open or the page is gone.
		Page *PageView `json:"page"`
	} `json:"browser"`
	Host struct {
		Cwd     string  `json:"cwd"`
		Entries []Entry `json:"entries"`
	} `json:"host"`
}

// Perceive returns the Perception of the simulator as it is now.
func (s *Sim) Perceive(ctx context.Context) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var p Perception
	p.Browser.URL, p.Browser.Page = s.url, s.view()
	p.Host.Cwd = s.world.Host.Cwd
	// A valid world's working directory is one of its directories.
	es, err := s.list(p.Host.Cwd)
	if err != nil {
		return nil, fmt.Errorf("sim: list the working directory %s: %w", p.Host.Cwd, err)
	}
	p.Host.Entries = es
	return p, nil
}
