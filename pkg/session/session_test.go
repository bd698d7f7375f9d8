package session_test

import (
	"errors"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/session"
)

func TestKey(t *testing.T) {
	s := session.Memory()
	if _, ok, err := s.Key(); ok || err != nil {
		t.Fatalf("fresh storage: Key() ok=%v err=%v, want no key", ok, err)
	}
	if err := s.SetKey("  \n"); !errors.Is(err, session.ErrEmptyKey) {
		t.Fatalf("SetKey(blank) = %v, want ErrEmptyKey", err)
	}
	if err := s.SetKey("  sk-or-v1-abc\n"); err != nil {
		t.Fatal(err)
	}
	if k, ok, _ := s.Key(); !ok || k != "sk-or-v1-abc" {
		t.Fatalf("Key() = %q, %v; want the trimmed key", k, ok)
	}
	if err := s.ForgetKey(); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Key(); ok {
		t.Fatal("key still there after ForgetKey")
	}
}

func TestBody(t *testing.T) {
	s := session.Memory()
	if b, err := s.Body(); b != body.KindSimulator || err != nil {
		t.Fatalf("default body = %q, %v; want simulator", b, err)
	}
	for _, b := range session.Bodies {
		if err := s.SetBody(b); err != nil {
			t.Fatalf("SetBody(%q): %v", b, err)
		}
		if got, _ := s.Body(); got != b {
			t.Fatalf("Body() = %q after SetBody(%q)", got, b)
		}
	}
	if err := s.SetBody("cloud"); err == nil {
		t.Fatal("SetBody(cloud) accepted a body that does not exist")
	}
}

// The key's state follows what was entered and what OpenRouter said: a
// refused key is not kept, a new key starts unchecked, and the answer
// about a key that has since been replaced changes nothing.
func TestKeyState(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(s *session.Storage) error
		want session.KeyState
		kept bool
	}{
		{"nothing entered", func(*session.Storage) error { return nil }, session.KeyNone, false},
		{"entered", func(s *session.Storage) error { return s.SetKey("sk-a") }, session.KeyUnchecked, true},
		{"accepted", func(s *session.Storage) error {
			return errors.Join(s.SetKey("sk-a"), s.MarkKey("sk-a", session.KeyAccepted))
		}, session.KeyAccepted, true},
		{"refused", func(s *session.Storage) error {
			return errors.Join(s.SetKey("sk-a"), s.MarkKey("sk-a", session.KeyRefused))
		}, session.KeyRefused, false},
		{"another key after a refusal", func(s *session.Storage) error {
			return errors.Join(s.SetKey("sk-a"), s.MarkKey("sk-a", session.KeyRefused), s.SetKey("sk-b"))
		}, session.KeyUnchecked, true},
		{"another key after an acceptance", func(s *session.Storage) error {
			return errors.Join(s.SetKey("sk-a"), s.MarkKey("sk-a", session.KeyAccepted), s.SetKey("sk-b"))
		}, session.KeyUnchecked, true},
		{"a late answer about a replaced key", func(s *session.Storage) error {
			return errors.Join(s.SetKey("sk-a"), s.SetKey("sk-b"), s.MarkKey("sk-a", session.KeyRefused))
		}, session.KeyUnchecked, true},
		{"forgotten", func(s *session.Storage) error {
			return errors.Join(s.SetKey("sk-a"), s.MarkKey("sk-a", session.KeyAccepted), s.ForgetKey())
		}, session.KeyNone, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := session.Memory()
			if err := tc.do(s); err != nil {
				t.Fatal(err)
			}
			st, err := s.KeyState()
			if err != nil || st != tc.want {
				t.Errorf("KeyState() = %q, %v; want %q", st, err, tc.want)
			}
			if _, ok, _ := s.Key(); ok != tc.kept {
				t.Errorf("key kept: %v, want %v", ok, tc.kept)
			}
		})
	}
	if err := session.Memory().MarkKey("sk-a", session.KeyNone); err == nil {
		t.Error("MarkKey took a state that is not an answer")
	}
}

// The local policy answer is asked once per tab: unanswered until set,
// kept as given, forgotten by the undo, and an unknown stored value is
// unanswered (asked again), never taken for a yes.
func TestLocalPolicy(t *testing.T) {
	s := session.Memory()
	if a, err := s.LocalPolicy(); a != session.LocalPolicyUnanswered || err != nil {
		t.Fatalf("fresh tab: LocalPolicy() = %q, %v; want unanswered", a, err)
	}
	for _, a := range []session.LocalPolicy{session.LocalPolicyAccepted, session.LocalPolicyDeclined, session.LocalPolicyUnanswered} {
		if err := s.SetLocalPolicy(a); err != nil {
			t.Fatalf("SetLocalPolicy(%q): %v", a, err)
		}
		if got, err := s.LocalPolicy(); got != a || err != nil {
			t.Fatalf("LocalPolicy() = %q, %v after SetLocalPolicy(%q)", got, err, a)
		}
	}
	if err := s.SetLocalPolicy("maybe"); err == nil {
		t.Fatal("SetLocalPolicy(maybe) accepted an answer that does not exist")
	}
}

// A pairing is kept only when it names a loopback address with a port and
// a secret; a bad one names its field and leaves the kept one as it was.
func TestPairing(t *testing.T) {
	s := session.Memory()
	if _, ok, err := s.Pairing(); ok || err != nil {
		t.Fatalf("fresh tab: paired %v, %v", ok, err)
	}
	good := session.Pairing{Addr: " 127.0.0.1:8790 ", Secret: " s3cret-Abc_1\n"}
	if err := s.SetPairing(good); err != nil {
		t.Fatal(err)
	}
	p, ok, err := s.Pairing()
	if !ok || err != nil || p.Addr != "127.0.0.1:8790" || p.Secret != "s3cret-Abc_1" {
		t.Fatalf("Pairing() = %+v, %v, %v; want the trimmed pairing", p, ok, err)
	}
	for _, tc := range []struct {
		p     session.Pairing
		field string
	}{
		{session.Pairing{Addr: "example.com:8790", Secret: "x"}, "addr"},
		{session.Pairing{Addr: "192.168.1.2:8790", Secret: "x"}, "addr"},
		{session.Pairing{Addr: "127.0.0.1", Secret: "x"}, "addr"},
		{session.Pairing{Addr: "127.0.0.1:0", Secret: "x"}, "addr"},
		{session.Pairing{Addr: "127.0.0.1:65536", Secret: "x"}, "addr"},
		{session.Pairing{Addr: "127.0.0.1:+80", Secret: "x"}, "addr"},
		{session.Pairing{Addr: "localhost:8790", Secret: ""}, "secret"},
		{session.Pairing{Addr: "localhost:8790", Secret: "pairing secret: abc"}, "secret"},
	} {
		err := s.SetPairing(tc.p)
		var pe *session.PairingError
		if !errors.As(err, &pe) || pe.Field != tc.field {
			t.Errorf("SetPairing(%+v) = %v; want an error on %s", tc.p, err, tc.field)
		}
	}
	if p, ok, _ := s.Pairing(); !ok || p.Addr != "127.0.0.1:8790" {
		t.Errorf("a refused pairing changed the kept one: %+v, %v", p, ok)
	}
	if err := s.ForgetPairing(); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Pairing(); ok {
		t.Error("still paired after ForgetPairing")
	}
}
