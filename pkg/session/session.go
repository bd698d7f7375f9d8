// Package session keeps what lives for one browser tab and no longer: the
// user's OpenRouter API key and the body the user picked (spec §4.4:
// OpenRouterKey and BodyChoice live in sessionStorage only), the tab's
// answer to whether the local policy engine may authorize browser and
// host runs, and the pairing with the bodies on the visitor's own
// machine, whose secret is kept like the key.
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
	"strconv"
	"strings"

	"workbench/pkg/body"
)

// Names of the sessionStorage entries.
const (
	keyItem      = "workbench.openrouter_key"
	keyStateItem = "workbench.openrouter_key_state"
	bodyItem     = "workbench.body"
	policyItem   = "workbench.local_policy"
	pairAddrItem = "workbench.pairing.addr"
	pairSecItem  = "workbench.pairing.secret"
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

// Bodies lists the bodies of spec §3 (body.Kind) in the order the UI
// offers them.
var Bodies = [...]body.Kind{body.KindSimulator, body.KindBrowser, body.KindHost}

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
func (s *Storage) Body() (body.Kind, error) {
	v, ok, err := s.b.get(bodyItem)
	if err != nil {
		return body.KindSimulator, fmt.Errorf("session: reading the body choice: %w", err)
	}
	if b := body.Kind(v); ok && b.Valid() {
		return b, nil
	}
	return body.KindSimulator, nil
}

// SetBody keeps the body choice for this session.
func (s *Storage) SetBody(b body.Kind) error {
	if !b.Valid() {
		return fmt.Errorf("session: %q is not a body (want simulator, browser or host)", string(b))
	}
	if err := s.b.set(bodyItem, string(b)); err != nil {
		return fmt.Errorf("session: keeping the body choice: %w", err)
	}
	return nil
}

// LocalPolicy is the tab's standing answer to spec OQ-2's question: may
// browser and host runs be authorized by the local policy engine when
// delegatic-mcp cannot decide them? It is asked once per tab, before the
// first such run, and kept beside the key for the tab's lifetime.
type LocalPolicy string

// The answers. Unanswered is the answer of a tab that was never asked:
// such a tab is asked before its first browser or host run, never
// decided for.
const (
	LocalPolicyUnanswered LocalPolicy = ""
	LocalPolicyAccepted   LocalPolicy = "accepted"
	LocalPolicyDeclined   LocalPolicy = "declined"
)

// LocalPolicy returns the tab's answer; an unreadable or unknown stored
// value reads as unanswered, so the tab is asked again rather than
// decided for.
func (s *Storage) LocalPolicy() (LocalPolicy, error) {
	v, _, err := s.b.get(policyItem)
	if err != nil {
		return LocalPolicyUnanswered, fmt.Errorf("session: reading the local policy answer: %w", err)
	}
	switch a := LocalPolicy(v); a {
	case LocalPolicyAccepted, LocalPolicyDeclined:
		return a, nil
	}
	return LocalPolicyUnanswered, nil
}

// SetLocalPolicy keeps the tab's answer; LocalPolicyUnanswered forgets it
// (the undo), so that the next browser or host run asks again.
func (s *Storage) SetLocalPolicy(a LocalPolicy) error {
	var err error
	switch a {
	case LocalPolicyAccepted, LocalPolicyDeclined:
		err = s.b.set(policyItem, string(a))
	case LocalPolicyUnanswered:
		err = s.b.remove(policyItem)
	default:
		return fmt.Errorf("session: %q is not an answer (want accepted, declined or unanswered)", string(a))
	}
	if err != nil {
		return fmt.Errorf("session: keeping the local policy answer: %w", err)
	}
	return nil
}

// Pairing is how this tab reaches the bodies a visitor runs on their own
// machine (`workbench bodies`): the loopback address they serve on and the
// secret the command printed. The secret is kept like the key: in this
// tab's sessionStorage and nowhere else, sent only to that address.
type Pairing struct {
	Addr   string // 127.0.0.1:PORT or localhost:PORT
	Secret string
}

// DefaultPairingPort is the port `workbench bodies` listens on unless told
// otherwise.
const DefaultPairingPort = 8790

// PairingError says which part of a pairing is wrong.
type PairingError struct {
	Field string // "addr" or "secret"
	Msg   string
}

func (e *PairingError) Error() string { return "pairing: " + e.Field + ": " + e.Msg }

// CheckPairing returns p with the spaces a paste brings removed, or a
// *PairingError: the address must be a loopback host and a port (the
// page's CSP lets it connect to nothing else), the secret must be
// non-empty text without spaces.
func CheckPairing(p Pairing) (Pairing, error) {
	p.Addr, p.Secret = strings.TrimSpace(p.Addr), strings.TrimSpace(p.Secret)
	host, port, ok := strings.Cut(p.Addr, ":")
	if !ok || (host != "127.0.0.1" && host != "localhost") {
		return p, &PairingError{"addr", fmt.Sprintf("%q is not 127.0.0.1:PORT or localhost:PORT: the page reaches bodies on this computer only", p.Addr)}
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return p, &PairingError{"addr", fmt.Sprintf("the port %q is not a number from 1 to 65535", port)}
	}
	switch {
	case p.Secret == "":
		return p, &PairingError{"secret", "enter the secret `workbench bodies` printed after \"pairing secret:\""}
	case strings.ContainsAny(p.Secret, " \t\r\n"):
		return p, &PairingError{"secret", "a pairing secret has no spaces: copy only the text after \"pairing secret: \""}
	}
	return p, nil
}

// Pairing returns the tab's pairing, if it has one.
func (s *Storage) Pairing() (Pairing, bool, error) {
	addr, ok1, err := s.b.get(pairAddrItem)
	if err != nil {
		return Pairing{}, false, fmt.Errorf("session: reading the pairing: %w", err)
	}
	sec, ok2, err := s.b.get(pairSecItem)
	if err != nil {
		return Pairing{}, false, fmt.Errorf("session: reading the pairing: %w", err)
	}
	p, err := CheckPairing(Pairing{Addr: addr, Secret: sec})
	if !ok1 || !ok2 || err != nil {
		return Pairing{}, false, nil
	}
	return p, true, nil
}

// SetPairing keeps a checked pairing for this tab.
func (s *Storage) SetPairing(p Pairing) error {
	p, err := CheckPairing(p)
	if err != nil {
		return err
	}
	if err := s.b.set(pairAddrItem, p.Addr); err != nil {
		return fmt.Errorf("session: keeping the pairing: %w", err)
	}
	if err := s.b.set(pairSecItem, p.Secret); err != nil {
		return fmt.Errorf("session: keeping the pairing: %w", err)
	}
	return nil
}

// ForgetPairing removes the pairing and its secret from the tab.
func (s *Storage) ForgetPairing() error {
	for _, item := range []string{pairSecItem, pairAddrItem} {
		if err := s.b.remove(item); err != nil {
			return fmt.Errorf("session: forgetting the pairing: %w", err)
		}
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
