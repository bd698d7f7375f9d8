package registry_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"workbench/pkg/registry"
	"workbench/pkg/registry/registrytest"
	"workbench/pkg/signature"
	"workbench/pkg/verify"
)

func verifier(t testing.TB) *verify.Verifier {
	t.Helper()
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAdmitTakesASignedRedactedBundle(t *testing.T) {
	data := registrytest.Publishable(t)
	adm, err := registry.Admit(verifier(t), data)
	if err != nil {
		t.Fatal(err)
	}
	e := adm.Entry
	k := registrytest.Key(1)
	if e.ContentHash != registrytest.ContentHash(t, data) || e.SignerKeyID != signature.KeyID(k.Public()) ||
		e.SignerPublicKey != signature.EncodeKey(k.Public()) || e.RedactionProfile != "transcript_pii" ||
		e.Verdict != "pass" || e.Version != 2 || e.Slug == "" || e.Name == "" || e.Size != len(adm.Data) {
		t.Errorf("entry %+v", e)
	}
	if e.PublishedAt != "" || e.Withdrawn() {
		t.Errorf("Admit set what the registry sets: %+v", e)
	}
	// What is stored is the canonical form, signature included, and
	// verifies as the same bundle.
	rep, err := verifier(t).Bytes(adm.Data)
	if err != nil || rep.ContentHash != e.ContentHash || rep.SignatureKeyID != e.SignerKeyID {
		t.Fatalf("stored bytes: %v %+v", err, rep)
	}
	again, err := registry.Admit(verifier(t), adm.Data)
	if err != nil || string(again.Data) != string(adm.Data) {
		t.Errorf("the canonical form is not its own canonical form: %v", err)
	}
}

func TestAdmitRefuses(t *testing.T) {
	v := verifier(t)
	for _, c := range registrytest.RefusedBundles(t, verifier(t)) {
		t.Run(c.Name, func(t *testing.T) {
			_, err := registry.Admit(v, c.Body)
			var ref *registry.Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("not a refusal: %v", err)
			}
			if ref.Code != c.Code || ref.Status != c.Status {
				t.Errorf("%d %s, want %d %s: %v", ref.Status, ref.Code, c.Status, c.Code, ref)
			}
			if ref.Message == "" || c.Code != registry.CodeTooLarge && len(ref.Problems) == 0 {
				t.Errorf("a refusal without its reasons: %+v", ref)
			}
		})
	}
}

// A bundle that breaks several rules is refused with each of them.
func TestAdmitListsEveryReason(t *testing.T) {
	_, err := registry.Admit(verifier(t), registrytest.Fixture(t, "valid-skill-bundle.v0.json"))
	var ref *registry.Refusal
	if !errors.As(err, &ref) || ref.Code != registry.CodeUnsigned {
		t.Fatalf("%v", err)
	}
	var pointers []string
	for _, p := range ref.Problems {
		pointers = append(pointers, p.Pointer)
	}
	if strings.Join(pointers, " ") != "/signature /evidence/redaction_profile" {
		t.Errorf("problems at %v", pointers)
	}
}

func TestParseLink(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	for _, c := range []struct {
		in, registry, err string
	}{
		{"https://wb.example.org/api/registry/bundles/" + hash, "https://wb.example.org", ""},
		{"  HTTP://WB.example.org:80/api/registry/bundles/" + hash + " ", "http://wb.example.org", ""},
		{"http://127.0.0.1:8787/api/registry/bundles/" + hash, "http://127.0.0.1:8787", ""},
		{"ftp://wb.example.org/api/registry/bundles/" + hash, "", "http or https"},
		{"/api/registry/bundles/" + hash, "", "http or https"},
		{"https://user:pw@wb.example.org/api/registry/bundles/" + hash, "", "user name"},
		{"https://wb.example.org/api/registry/bundles/" + hash + "?x=1", "", "query"},
		{"https://wb.example.org/api/registry/bundles/" + hash + "#top", "", "fragment"},
		{"https://wb.example.org/api/registry/bundles/" + strings.ToUpper(hash), "", "not a content hash"},
		{"https://wb.example.org/api/registry/bundles/" + hash + "/x", "", "not a content hash"},
		{"https://wb.example.org/api/registry/bundles/sha256%3A" + strings.Repeat("ab", 32), "", "percent-encoding"},
		{"https://wb.example.org/api/registry/skills/" + hash, "", "the path is not"},
		{"https://wb.example.org/api/registry/bundles/../bundles/" + hash, "", "not a content hash"},
		{"https://evil.example/x?u=https://wb.example.org/api/registry/bundles/" + hash, "", "query"},
	} {
		l, err := registry.ParseLink(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.err == "" && (l.Registry != c.registry || l.ContentHash != hash):
			t.Errorf("%q: %+v", c.in, l)
		case c.err != "" && (err == nil || !errors.Is(err, registry.ErrNotALink) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want an error saying %q", c.in, err, c.err)
		}
	}
}

func TestLinkPages(t *testing.T) {
	l := registry.Link{Registry: "https://wb.example.org", ContentHash: "sha256:" + strings.Repeat("0", 64)}
	if got, err := registry.ParseLink(l.String()); err != nil || got != l {
		t.Errorf("round trip: %+v %v", got, err)
	}
	u, err := url.Parse(l.ImportPage())
	if err != nil || u.Scheme+"://"+u.Host != l.Registry || u.Path != "/import" || u.Query().Get("from") != l.String() {
		t.Errorf("import page %s", l.ImportPage())
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://WB.Example.org/":    "https://wb.example.org",
		"https://wb.example.org:443": "https://wb.example.org",
		"http://localhost:8787":      "http://localhost:8787",
		"https://wb.example.org/x":   "",
		"wb.example.org":             "",
		"https://u@wb.example.org":   "",
	} {
		got, err := registry.Origin(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("Origin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	key := "sha256:" + strings.Repeat("cd", 32)
	c := registry.Cursor{PublishedAt: "2026-12-05T10:09:39.998Z", ContentHash: "sha256:" + strings.Repeat("ab", 32)}
	q, err := registry.ParseQuery(url.Values{"q": {" form "}, "signer": {key}, "cursor": {c.String()}, "limit": {"5"}})
	if err != nil || q.Text != "form" || q.Signer != key || q.After == nil || *q.After != c || q.Limit != 5 {
		t.Fatalf("%+v %v", q, err)
	}
	if q, err := registry.ParseQuery(url.Values{}); err != nil || q.Limit != registry.DefaultPageSize || q.After != nil {
		t.Errorf("empty query: %+v %v", q, err)
	}
	for name, v := range map[string]url.Values{
		"unknown parameter":  {"sort": {"name"}},
		"repeated":           {"q": {"a", "b"}},
		"long text":          {"q": {strings.Repeat("x", registry.MaxQueryText+1)}},
		"signer not a key":   {"signer": {"alice"}},
		"forged cursor":      {"cursor": {"bm90IGEgY3Vyc29y"}},
		"cursor not base64":  {"cursor": {"***"}},
		"limit zero":         {"limit": {"0"}},
		"limit over the max": {"limit": {"51"}},
	} {
		_, err := registry.ParseQuery(v)
		var ref *registry.Refusal
		if !errors.As(err, &ref) || ref.Code != registry.CodeQuery || ref.Status != 400 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestWithdrawal(t *testing.T) {
	const origin = "https://wb.example.org"
	data := registrytest.Publishable(t)
	adm, err := registry.Admit(verifier(t), data)
	if err != nil {
		t.Fatal(err)
	}
	e := adm.Entry
	w, err := registry.ParseWithdrawal(registrytest.Withdrawal(t, registrytest.Key(1), origin, e.ContentHash))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Check(origin, e); err != nil {
		t.Fatalf("the signer's own withdrawal: %v", err)
	}
	at := "2026-12-05T10:11:23.109Z"
	withdrawn := e
	withdrawn.WithdrawnAt = &at
	var ref *registry.Refusal
	if err := w.Check(origin, withdrawn); !errors.As(err, &ref) || ref.Code != registry.CodeAlreadyWithdrawn || ref.Status != 409 {
		t.Errorf("a second time: %v", err)
	}
	for _, c := range registrytest.RefusedWithdrawals(t, origin, e.ContentHash) {
		t.Run(c.Name, func(t *testing.T) {
			w, err := registry.ParseWithdrawal(c.Body)
			if err == nil {
				err = w.Check(origin, e)
			}
			var ref *registry.Refusal
			if !errors.As(err, &ref) || ref.Code != c.Code || ref.Status != c.Status {
				t.Errorf("%v, want %d %s", err, c.Status, c.Code)
			}
		})
	}
}

// The message a withdrawal signs is the context, the origin and the hash:
// what docs/registry.md and schemas/registry-withdrawal.schema.json say.
func TestWithdrawalMessage(t *testing.T) {
	got := string(registry.WithdrawalMessage("https://wb.example.org", "sha256:00"))
	if got != "skill-workbench registry withdrawal v1\nhttps://wb.example.org\nsha256:00" {
		t.Errorf("%q", got)
	}
	b, err := json.Marshal(registry.Entry{})
	if err != nil || !strings.Contains(string(b), `"withdrawn_at":null`) {
		t.Errorf("an entry not withdrawn must say withdrawn_at null: %s", b)
	}
}
