package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/pkg/signature"
)

// keygen makes a key in dir and returns the key file, its pin set file and
// what keygen printed.
func keygen(t *testing.T, dir, name string) (key, pins, stdout string) {
	t.Helper()
	key = filepath.Join(dir, name+".key")
	code, stdout, stderr := runCmd(t, "", "keygen", "--out", key)
	if code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, stderr)
	}
	return key, key + ".pub.json", stdout
}

func copyFixture(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(fixture("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The key file is created with mode 0600 and never printed; beside it a
// pin set holds just its public key, which keygen prints.
func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	key, pinFile, stdout := keygen(t, dir, "release")
	fi, err := os.Stat(key)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	keyData, _ := os.ReadFile(key)
	priv, err := signature.ParseKey(keyData)
	if err != nil {
		t.Fatal(err)
	}
	pinData, _ := os.ReadFile(pinFile)
	ps, err := signature.ParsePins(pinData)
	if err != nil {
		t.Fatal(err)
	}
	pub := signature.KeySigner{Key: priv}.Public()
	if len(ps.Signers) != 1 || ps.Signers[0].Name != "release" || ps.Signers[0].PublicKey != signature.EncodeKey(pub) {
		t.Errorf("pin set %s, want just the key's public key named release", pinData)
	}
	if !strings.Contains(stdout, signature.EncodeKey(pub)) || !strings.Contains(stdout, signature.KeyID(pub)) {
		t.Errorf("keygen did not print the public key and its id:\n%s", stdout)
	}
	assertNoKey(t, keyData, stdout)

	// A second keygen onto the same file replaces nothing.
	before, _ := os.ReadFile(key)
	code, _, stderr := runCmd(t, "", "keygen", "--out", key)
	after, _ := os.ReadFile(key)
	if code != 2 || !strings.Contains(stderr, "already exists") || !bytes.Equal(before, after) {
		t.Errorf("keygen over an existing key: exit %d, %s", code, stderr)
	}
	if code, _, _ := runCmd(t, "", "keygen"); code != 2 {
		t.Errorf("keygen without --out: exit %d, want 2", code)
	}
}

// assertNoKey fails when out holds the private key of the key file data
// in any form: the PEM text, its base64 body, or the raw seed in base64
// or hex.
func assertNoKey(t *testing.T, keyData []byte, outs ...string) {
	t.Helper()
	priv, err := signature.ParseKey(keyData)
	if err != nil {
		t.Fatal(err)
	}
	seed := priv.Seed()
	lines := strings.Split(strings.TrimSpace(string(keyData)), "\n")
	secrets := []string{lines[1], base64.StdEncoding.EncodeToString(seed), base64.RawURLEncoding.EncodeToString(seed), strings.ToLower(string(bytesHex(seed)))}
	for _, out := range outs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Fatalf("the private key was printed:\n%s", out)
			}
		}
	}
}

func bytesHex(b []byte) []byte {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return out
}

// Sign, then verify with and without a pin set, with someone else's pin
// set, and after tampering.
func TestSignAndVerifyTrust(t *testing.T) {
	dir := t.TempDir()
	key, pins, _ := keygen(t, dir, "release")
	_, otherPins, _ := keygen(t, dir, "other")
	a, b := copyFixture(t, dir, "a.skill.json"), copyFixture(t, dir, "b.skill.json")
	orig, _ := os.ReadFile(a)

	code, stdout, stderr := runCmd(t, "", "sign", "--key", key, a, b)
	if code != 0 {
		t.Fatalf("sign: exit %d: %s", code, stderr)
	}
	keyData, _ := os.ReadFile(key)
	assertNoKey(t, keyData, stdout, stderr)
	signedA, _ := os.ReadFile(a)
	if bytes.Equal(signedA, orig) || !bytes.Contains(signedA, []byte(`"algorithm":"Ed25519"`)) {
		t.Fatal("sign did not write the signature in place")
	}
	out := filepath.Join(dir, "out.skill.json")
	orig2 := copyFixture(t, dir, "c.skill.json")
	if code, _, stderr := runCmd(t, "", "sign", "--key", key, "--out", out, orig2); code != 0 {
		t.Fatalf("sign --out: exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(orig2); !bytes.Equal(data, orig) {
		t.Error("sign --out changed its input")
	}

	tamperedSig := filepath.Join(dir, "badsig.skill.json")
	var m map[string]json.RawMessage
	json.Unmarshal(signedA, &m)
	var s signature.Signature
	json.Unmarshal(m["signature"], &s)
	raw, _ := base64.StdEncoding.DecodeString(s.Value)
	raw[10] ^= 1
	bad := bytes.Replace(signedA, []byte(s.Value), []byte(base64.StdEncoding.EncodeToString(raw)), 1)
	os.WriteFile(tamperedSig, bad, 0o644)

	merged := filepath.Join(dir, "merged.json")
	var p1, p2 signature.PinSet
	d1, _ := os.ReadFile(pins)
	d2, _ := os.ReadFile(otherPins)
	json.Unmarshal(d1, &p1)
	json.Unmarshal(d2, &p2)
	mergedData, _ := json.Marshal(signature.PinSet{Signers: append(p2.Signers, p1.Signers...)})
	os.WriteFile(merged, mergedData, 0o644)

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"trusted", []string{"verify", "--trust", pins, a, b, out}, 0, []string{"signed: true (signed by release, key sha256:"}, nil},
		{"merged pin sets", []string{"verify", "--trust", merged, a}, 0, []string{"signed: true (signed by release"}, nil},
		{"no pin set", []string{"verify", a}, 0, []string{"signed: false (signature present, not verified)"}, nil},
		{"someone else's pin set", []string{"verify", "--trust", otherPins, a}, 0, []string{"signed: false (signed by an unknown key sha256:"}, nil},
		{"signature tampered", []string{"verify", "--trust", pins, tamperedSig}, 1, []string{"signed: false (SIGNATURE INVALID: the signature does not verify over the content_hash)"}, nil},
		{"signature tampered, no pin set", []string{"verify", tamperedSig}, 1, []string{"SIGNATURE INVALID"}, nil},
		{"unsigned", []string{"verify", "--trust", pins, fixture("valid-skill-bundle.v0.json")}, 0, []string{"signed: false  redaction"}, nil},
		{"pin set missing", []string{"verify", "--trust", filepath.Join(dir, "none.json"), a}, 2, nil, []string{"--trust"}},
		{"pin set is a key", []string{"verify", "--trust", key, a}, 2, nil, []string{"pin set"}},
		{"sign --out with two", []string{"sign", "--key", key, "--out", out, a, b}, 2, nil, []string{"--out takes one bundle"}},
		{"sign with a pin set as key", []string{"sign", "--key", pins, a}, 2, nil, []string{"not a PEM"}},
		{"sign a broken seal", []string{"sign", "--key", key, fixture("invalid-missing-content-hash.v0.json")}, 2, nil, []string{"invalid-missing-content-hash.v0.json:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if strings.Contains(stdout, "signed: true") && !slicesContain(tt.args, pins) && !slicesContain(tt.args, merged) {
				t.Errorf("signed: true without the signer's pin set:\n%s", stdout)
			}
			assertNoKey(t, keyData, stdout, stderr)
		})
	}

	// --json says the same.
	code, stdout, _ = runCmd(t, "", "verify", "--json", "--trust", pins, a)
	var res []struct {
		Report struct {
			Signed    bool   `json:"signed"`
			Signature string `json:"signature"`
			Signer    string `json:"signer"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatalf("verify --json: exit %d, %v\n%s", code, err, stdout)
	}
	if r := res[0].Report; !r.Signed || r.Signature != "trusted" || r.Signer != "release" {
		t.Errorf("verify --json: %+v", r)
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
