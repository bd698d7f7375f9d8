package redact

import (
	"slices"
	"strings"
	"testing"
)

func TestScanPII(t *testing.T) {
	d := NewDetector()
	type m struct{ kind, text string }
	tests := []struct {
		name string
		s    string
		want []m
	}{
		{"e-mail", "Write to jane.doe+work@mail.example.co.uk today.", []m{{KindEmail, "jane.doe+work@mail.example.co.uk"}}},
		{"e-mail in angle brackets", "From: Jane <jane@example.com>", []m{{KindEmail, "jane@example.com"}}},
		{"two e-mails", "a@b.io,c@d.org", []m{{KindEmail, "a@b.io"}, {KindEmail, "c@d.org"}}},
		{"not an e-mail: package scope", "npx @playwright/mcp@latest", nil},
		{"not an e-mail: version", "go install tool@v1.2.3", nil},
		{"not an e-mail: no domain dot", "ssh root@localhost", nil},
		{"password colon", "password: hunter2", []m{{KindPassword, "hunter2"}}},
		{"password equals, upper case", "DB_PASSWORD=s3cr#3t!", []m{{KindPassword, "s3cr#3t"}}},
		{"passwd quoted", `passwd = "correct horse"`, []m{{KindPassword, "correct horse"}}},
		{"pwd is", "my pwd is Tr0ub4dor.", []m{{KindPassword, "Tr0ub4dor"}}},
		{"camelCase label", "userPassword:xyzzy", []m{{KindPassword, "xyzzy"}}},
		{"JSON member", `{"password":"open sesame"}`, []m{{KindPassword, "open sesame"}}},
		{"blank then a value with digits", "password hunter2", []m{{KindPassword, "hunter2"}}},
		{"blank then a word", "Reset the password for jane", nil},
		{"blank then no letter or digit", "password -- see below", nil},
		{"the shell command pwd", "pwd && ls -la", nil},
		{"the shell command passwd", "passwd -l alice", nil},
		{"pwd with a separator", "pwd=abc123", []m{{KindPassword, "abc123"}}},
		{"label inside a word", "passwordless login: yes", nil},
		{"already masked", "password: [redacted:password]", nil},
		{"e-mail and password", "login jane@example.com password=pa55", []m{{KindEmail, "jane@example.com"}, {KindPassword, "pa55"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []m
			for _, x := range d.ScanPII(tt.s) {
				got = append(got, m{x.Kind, tt.s[x.Start:x.End]})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ScanPII(%q) = %q, want %q", tt.s, got, tt.want)
			}
		})
	}
}

func TestScanPIIPasswordMember(t *testing.T) {
	for _, name := range []string{"password", "db_password", "userPasswd", "PWD"} {
		if got := appendPII(nil, "anything at all", name); len(got) != 1 || got[0] != (Match{Kind: KindPassword, Start: 0, End: 15}) {
			t.Errorf("member %q: %v", name, got)
		}
	}
	for _, name := range []string{"password_hash", "pwd_changed_at", "passage"} {
		if got := appendPII(nil, "anything at all", name); len(got) != 0 {
			t.Errorf("member %q: %v, want nothing", name, got)
		}
	}
}

func TestClean(t *testing.T) {
	d := NewDetector()
	s := "Log in as jane@example.com with password: hunter2 and key " + fakeOpenRouter + "."
	want := "Log in as [redacted:email] with password: [redacted:password] and key [redacted:openrouter_key]."
	if got := d.Clean(s); got != want {
		t.Errorf("Clean\n got %q\nwant %q", got, want)
	}
	if got := d.Clean(want); got != want {
		t.Errorf("Clean is not idempotent: %q", got)
	}
}

// FuzzScanPII checks that personal matches are ordered, in range and
// never overlap, and that Clean leaves nothing to find.
func FuzzScanPII(f *testing.F) {
	for _, s := range []string{"a@b.co", "password: x", "pwd=a pwd=b", "x@y@z.io", strings.Repeat("password:", 50)} {
		f.Add(s)
	}
	d := NewDetector()
	f.Fuzz(func(t *testing.T, s string) {
		last := 0
		for _, m := range d.ScanPII(s) {
			if m.Start < last || m.End <= m.Start || m.End > len(s) {
				t.Fatalf("bad match %+v in %q", m, s)
			}
			last = m.End
		}
		if c := d.Clean(s); len(d.ScanPII(c)) != 0 || d.ContainsSecret(c) {
			t.Fatalf("Clean(%q) = %q still holds something", s, c)
		}
	})
}
