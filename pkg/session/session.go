// Package session keeps what lives for one browser tab and no longer: the
// user's OpenRouter API key and the body the user picked (spec §4.4:
// OpenRouterKey and BodyChoice live in sessionStorage only).
//
// In the browser (GOOS=js) a Storage is backed by window.sessionStorage and
// by nothing else: the key is never written to IndexedDB, localStorage,
// cookies or any file, and it disappears when the tab closes. Natively (the
// static-site generator, tests) Memory gives the same behaviour in a map.
//
// Values read back are checked: a body choice that is not one of the three
// names reads as the simulator, the only body that is always available.
package session

import (
	"errors"
	"fmt"
	"strings"

	"workbench/pkg/body"
)

// Names of the sessionStorage entries.
const (
	keyItem      = "workbench.openrouter_key"
	keyStateItem = "workbench.openrouter_key_state"
	bodyItem     = "workbench.body"
)

// KeyState is what the session knows of its OpenRouter key.
type KeyState string

// The states of the key. Only an accepted key is worth starting a run
// with; the others say what is missing.
const (
	KeyNone      KeyState = "none"      // no key was entered in this tab
	KeyUnchecked KeyState = "unchecked" // a key is kept; OpenRouter has not accepted it yet
	KeyAccepted  KeyState = "accepted"  // a key is kept and OpenRouter accepted it
	KeyRefused   KeyState = "refused"   // OpenRouter refused the key entered last, so it is not kept
)

// Body is the body the user picked on the landing page: a body kind.
type Body = body.Kind

// The three bodies of spec §3.
const (
	Simulator = body.KindSimulator // deterministic, in the page; always available
	Browser   = body.KindBrowser   // an MCP server that drives a browser
	Host      = body.KindHost      // an MCP server that exposes a sandboxed shell
)

// Bodies lists the bodies in the order the UI offers them.
var Bodies = [...]Body{Simulator, Browser, Host}

// backend is the string store under a Storage: sessionStorage in the
// browser, a map natively.
type backend interface {
	get(name string) (string, bool, error)
	set(name, value string) error
	remove(name string) error
}

// Storage reads and writes the session's values. Its zero value is not
// usable; get one from Open or Memory.
type Storage struct {
	b backend
}

// ErrEmptyKey is returned by SetKey for a key that is empty once spaces
// around it are removed.
var ErrEmptyKey = errors.New("session: the API key is empty")

// Key returns the OpenRouter key of this session, if one was set.
func (s *Storage) Key() (string, bool, error) {
	k, ok, err := s.b.get(keyItem)
	if err != nil {
		return "", false, fmt.Errorf("session: reading the API key: %w", err)
	}
	return k, ok && k != "", nil
}

// SetKey keeps key for this session, without the spaces a paste may bring
// around it.
func (s *Storage) SetKey(key string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return ErrEmptyKey
	}
	if err := s.b.set(keyItem, key); err != nil {
		return fmt.Errorf("session: keeping the API key: %w", err)
	}
	// A new key is unchecked, whatever was said of the one before.
	if err := s.b.remove(keyStateItem); err != nil {
		return fmt.Errorf("session: keeping the API key: %w", err)
	}
	return nil
}

// ForgetKey removes the key, and what was known of it, from the session.
func (s *Storage) ForgetKey() error {
	if err := s.b.remove(keyItem); err != nil {
		return fmt.Errorf("session: forgetting the API key: %w", err)
	}
	if err := s.b.remove(keyStateItem); err != nil {
		return fmt.Errorf("session: forgetting the API key: %w", err)
	}
	return nil
}

// KeyState says whether a key is kept and what OpenRouter said of it.
func (s *Storage) KeyState() (KeyState, error) {
	_, ok, err := s.Key()
	if err != nil {
		return KeyNone, err
	}
	st, _, err := s.b.get(keyStateItem)
	if err != nil {
		return KeyNone, fmt.Errorf("session: reading the API key's state: %w", err)
	}
	switch {
	case ok && KeyState(st) == KeyAccepted:
		return KeyAccepted, nil
	case ok:
		return KeyUnchecked, nil
	case KeyState(st) == KeyRefused:
		return KeyRefused, nil
	}
	return KeyNone, nil
}

// MarkKey records what OpenRouter said of key: KeyAccepted keeps it as
// accepted, KeyRefused removes it from the session, so that no page goes
// on using a key that cannot work. Nothing changes when key is no longer
// the session's key (another was entered while it was being checked).
func (s *Storage) MarkKey(key string, st KeyState) error {
	if st != KeyAccepted && st != KeyRefused {
		return fmt.Errorf("session: a key can be marked accepted or refused, not %q", string(st))
	}
	kept, ok, err := s.Key()
	if err != nil || !ok || kept != strings.TrimSpace(key) {
		return err
	}
	if st == KeyRefused {
		if err := s.b.remove(keyItem); err != nil {
			return fmt.Errorf("session: forgetting the refused API key: %w", err)
		}
	}
	if err := s.b.set(keyStateItem, string(st)); err != nil {
		return fmt.Errorf("session: keeping the API key's state: %w", err)
	}
	return nil
}

// Body returns the body picked in this session; Simulator when none was
// picked or the stored value is not a body's name.
func (s *Storage) Body() (Body, error) {
	v, ok, err := s.b.get(bodyItem)
	if err != nil {
		return Simulator, fmt.Errorf("session: reading the body choice: %w", err)
	}
	if b := Body(v); ok && b.Valid() {
		return b, nil
	}
	return Simulator, nil
}

// SetBody keeps the body choice for this session.
func (s *Storage) SetBody(b Body) error {
	if !b.Valid() {
		return fmt.Errorf("session: %q is not a body (want simulator, browser or host)", string(b))
	}
	if err := s.b.set(bodyItem, string(b)); err != nil {
		return fmt.Errorf("session: keeping the body choice: %w", err)
	}
	return nil
}

// Memory returns a Storage that lives in memory only, for the native build
// and for tests.
func Memory() *Storage { return &Storage{b: &memory{m: map[string]string{}}} }

type memory struct{ m map[string]string }

func (m *memory) get(name string) (string, bool, error) { v, ok := m.m[name]; return v, ok, nil }
func (m *memory) set(name, value string) error          { m.m[name] = value; return nil }
func (m *memory) remove(name string) error              { delete(m.m, name); return nil }
