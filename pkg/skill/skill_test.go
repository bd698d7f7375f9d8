package skill_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

	"workbench/pkg/canonjson"
	"workbench/pkg/skill"
)

func referenceBundle(t testing.TB) []byte {
	t.Helper()
	data, err := readFixture("valid-skill-bundle.v0.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readFixture(name string) ([]byte, error) {
	return os.ReadFile("../../fixtures/" + name)
}

// Decoding a bundle two different ways — into a generic map and into the
// typed structs — and re-sealing gives the same bytes and hash.
func TestResealTwoWays(t *testing.T) {
	data := referenceBundle(t)

	typed, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	claimed := typed.ContentHash
	if err := typed.Seal(); err != nil {
		t.Fatal(err)
	}
	typedBytes, err := typed.Encode()
	if err != nil {
		t.Fatal(err)
	}

	var generic map[string]any
	if err := json.Unmarshal(data, &generic); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(generic)
	doc, err := canonjson.Parse(raw, canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	genericHash, err := skill.DocumentHash(doc)
	if err != nil {
		t.Fatal(err)
	}
	genericBytes := doc.Canonical()

	if typed.ContentHash != claimed || genericHash != claimed {
		t.Fatalf("hashes differ: claimed %s, typed %s, generic %s", claimed, typed.ContentHash, genericHash)
	}
	if !bytes.Equal(typedBytes, genericBytes) {
		t.Fatal("typed and generic re-serializations differ")
	}
	if !bytes.Equal(typedBytes, data) {
		t.Fatal("the exported file is not its own canonical form")
	}
}

func TestHashIgnoresContentHashAndSignature(t *testing.T) {
	b, _, err := skill.Decode(referenceBundle(t))
	if err != nil {
		t.Fatal(err)
	}
	h1, _ := b.Hash()
	b.ContentHash = "sha256:" + strings.Repeat("0", 64)
	b.Signature = json.RawMessage(`"forged"`)
	h2, _ := b.Hash()
	if h1 != h2 {
		t.Fatal("content_hash or signature changed the hash")
	}
	b.Manifest.Name = "Other"
	if h3, _ := b.Hash(); h3 == h1 {
		t.Fatal("changing the manifest did not change the hash")
	}
	if err := b.Seal(); err != nil || b.Signature != nil {
		t.Fatal("Seal must clear the signature: it spoke for the old content hash")
	}
}

func TestUnknownMembersOfOpenObjectsSurvive(t *testing.T) {
	data := referenceBundle(t)
	var m map[string]any
	json.Unmarshal(data, &m)
	trace := m["interaction_trace"].(map[string]any)
	trace["x_vendor"] = map[string]any{"k": []any{1.0, "two"}}
	edge := trace["edges"].([]any)[0].(map[string]any)
	edge["x_note"] = "kept"
	m["evidence"].(map[string]any)["scenario"].(map[string]any)["x_seed"] = 7.0
	in, _ := json.Marshal(m)

	b, _, err := skill.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := canonjson.Transform(in)
	if !bytes.Equal(out, want) {
		t.Fatalf("extension members were lost or changed:\n%s", out)
	}
}

func TestDecodeErrorsNameThePlace(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`[1]`, "top-level value must be a JSON object"},
		{`{"a":1,"a":2}`, "/a"},
		{`{"manifest":{"version":"one"}}`, "/manifest/version (byte 23): must be an integer, found JSON string"},
		{`{"skill_version":1.5}`, "/skill_version (byte 17): must be an integer, found JSON number 1.5"},
		{"{\"a\":\"\xff\"}", "invalid UTF-8"},
	}
	for _, tt := range tests {
		_, _, err := skill.Decode([]byte(tt.in))
		var de *skill.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: got %v, want a DecodeError", tt.in, err)
			continue
		}
		if !strings.Contains(de.Error(), tt.want) {
			t.Errorf("%s: %q does not mention %q", tt.in, de.Error(), tt.want)
		}
	}
}

func TestNewIDIsUUIDv7(t *testing.T) {
	a, b := skill.NewID(), skill.NewID()
	for _, id := range []string{a, b} {
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 7 {
			t.Fatalf("%s is not a UUIDv7", id)
		}
	}
	if a >= b {
		t.Errorf("ids are not sortable by creation: %s then %s", a, b)
	}
}

func TestSlugs(t *testing.T) {
	tests := []struct{ name, slug string }{
		{"Summarize a GitHub repo", "summarize-a-github-repo"},
		{"  Crème brûlée — recipe!! ", "creme-brulee-recipe"},
		{"a", "skill"},
		{"日本語", "skill"},
		{strings.Repeat("ab ", 60), strings.TrimRight(strings.Repeat("ab-", 27), "-")},
		{strings.Repeat("abc ", 20) + "x", strings.Repeat("abc-", 19) + "abc"}, // 79: the cut falls on a hyphen
		{strings.Repeat("abcd ", 16) + "xyz", strings.TrimRight(strings.Repeat("abcd-", 16), "-")},
		{strings.Repeat("abcd", 19) + " " + "xyzw", strings.Repeat("abcd", 19)},
		{"go " + strings.Repeat("abcdef", 14), "go"}, // the long word is not cut
		{strings.Repeat("z", 90), "skill"},
	}
	for _, tt := range tests {
		got := skill.Slugify(tt.name)
		if got != tt.slug {
			t.Errorf("Slugify(%q) = %q, want %q", tt.name, got, tt.slug)
		}
		if err := skill.ValidSlug(got); err != nil {
			t.Errorf("Slugify(%q) gave an invalid slug: %v", tt.name, err)
		}
	}
	for _, bad := range []string{"", "a", "Upper", "two--hyphens", "-lead", "trail-", "under_score", strings.Repeat("a", 81)} {
		if skill.ValidSlug(bad) == nil {
			t.Errorf("ValidSlug(%q) accepted it", bad)
		}
	}
	if got := skill.ExportFilename("weather-lookup", 3); got != "weather-lookup.v3.skill.json" {
		t.Errorf("ExportFilename = %q", got)
	}
}

func TestShapeHash(t *testing.T) {
	a := map[string]any{"title": "Porto", "items": []any{"x", "y", "z"}, "n": 1.0}
	b := map[string]any{"n": 2.0, "items": []any{"q"}, "title": "Lisbon"}
	c := map[string]any{"title": "Porto", "items": []any{1.0}, "n": 1.0}
	sa, _ := skill.ShapeHash(a)
	sb, _ := skill.ShapeHash(b)
	sc, _ := skill.ShapeHash(c)
	if sa != sb {
		t.Error("same layout, other text: shapes differ")
	}
	if sa == sc {
		t.Error("array of strings and array of numbers share a shape")
	}
	ha, _ := skill.StateHash(a)
	hb, _ := skill.StateHash(b)
	if ha == hb {
		t.Error("different states hash equally")
	}
}

func ExampleBundle_Seal() {
	b := &skill.Bundle{BundleVersion: skill.BundleVersion, SkillVersion: 1}
	if err := b.Seal(); err != nil {
		panic(err)
	}
	sealed := b.ContentHash

	// The hash covers everything but content_hash and signature.
	b.ContentHash = "anything"
	again, _ := b.Hash()
	fmt.Println(strings.HasPrefix(sealed, "sha256:"), len(sealed), sealed == again)
	// Output: true 71 true
}
