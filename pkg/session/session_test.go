package session_test

import (
	"errors"
	"testing"

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
	if b, err := s.Body(); b != session.Simulator || err != nil {
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
