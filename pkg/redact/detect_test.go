package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestScanStringDetectsEachKind(t *testing.T) {
	d := NewDetector()
	tests := []struct {
		kind, secret string
		before       string // text around the secret
		after        string
	}{
		{KindOpenRouterKey, fakeOpenRouter, "Authorization: Bearer ", ""},
		{KindOpenAIKey, fakeOpenAI, "OPENAI_API_KEY=", "\n"},
		{KindOpenAIKey, fakeOpenAIProj, "key ", " used"},
		{KindAnthropicKey, fakeAnthropic, "x-api-key: ", ""},
		{KindAWSAccessKeyID, fakeAWSID, "aws_access_key_id = ", "\n"},
		{KindAWSAccessKeyID, fakeAWSSessionID, "(", ")"},
		{KindJWT, fakeJWT, "token=", "&next=1"},
		{KindJWT, jwt(`{"alg":"none"}`, `{"sub":"x"}`, ""), "unsecured ", " end"},
		{KindGitHubToken, fakeGitHub, "git clone https://", "@github.com/o/r"},
		{KindGitHubToken, fakeGitHubPAT, "", ""},
		{KindSlackToken, fakeSlack, "SLACK_BOT_TOKEN=", ""},
		{KindSlackWebhook, fakeSlackHook, "POST ", " 200"},
		{KindPrivateKey, fakePEM, "id_rsa:\n", "\ndone"},
		{KindPrivateKey, "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA", "cat key → ", ""},
		{KindGoogleAPIKey, fakeGoogle, "https://maps.example/?key=", "&q=porto"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			s := tt.before + tt.secret + tt.after
			got := d.ScanString(s)
			want := []Match{{Kind: tt.kind, Start: len(tt.before), End: len(tt.before) + len(tt.secret)}}
			if !slices.Equal(got, want) {
				t.Fatalf("ScanString = %+v, want %+v", got, want)
			}
			if !d.ContainsSecret(s) {
				t.Error("ContainsSecret = false")
			}
		})
	}
}

func TestScanStringLabelledAWSSecret(t *testing.T) {
	d := NewDetector()
	for _, label := range []string{"aws_secret_access_key = ", "AWS_SECRET_ACCESS_KEY=", `"SecretAccessKey": "`, "aws-secret-key: '"} {
		s := label + fakeAWSSecret + `"`
		got := d.ScanString(s)
		want := []Match{{Kind: KindAWSSecretKey, Start: len(label), End: len(label) + 40}}
		if !slices.Equal(got, want) {
			t.Errorf("%q: ScanString = %+v, want %+v", label, got, want)
		}
	}
}

func TestScanStringNearMisses(t *testing.T) {
	d := NewDetector()
	for _, s := range []string{
		"sk-" + "abcde",
		"sk-" + strings.Repeat("abcdefgh", 5),                 // one letter case: a word, not a key
		"sk-proj-summarize-github-repo-and-write-it-down-now", // a slug
		"task-" + strings.Repeat("aB3dE5", 8),                 // sk- inside a word
		"sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)[:63],
		"sk-or-v1-" + strings.Repeat("0123456789abcdef", 4) + "0", // too long
		"AKIA keys are AWS access key ids, and ASIA ones are temporary",
		"AKIA" + "Z7QW3ERT5YUI2OPL" + "X", // 17 characters after the prefix
		"X" + "AKIA" + "Z7QW3ERT5YUI2OPL",
		strings.Repeat("Ab3/Xy9+", 5),                 // 40 base64 characters without a label
		"aGVsbG8gd29y.bGQgZm9vYmFy.YmF6cXV4",          // base64 with two dots
		jwt(`{"not":"a jwt"}`, `{"sub":"x"}`, "c2ln"), // header without alg
		jwt(`{"alg":"HS256"}`, `{"sub":"x"}`, ""),     // signed, but no signature
		"eyJ" + "!!!!" + ".abc.def",                   // not base64url
		"eyJhbGciOiJIUzI1NiJ9xx.eyJzdWIiOiIxIn0.c2ln", // header not decodable JSON
		"ghp_" + "short",                              //
		"xoxb-" + "token-for-the-bot",                 //
		"xoxb-1-2",                                    //
		"https://hooks.slack.com/",                    //
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n-----END PUBLIC KEY-----",
		"AIza" + strings.Repeat("x", 20),
		"the sha256 is sha256:" + strings.Repeat("ab", 32),
		"0190a6f0-0001-7000-8000-000000000001",
	} {
		if got := d.ScanString(s); len(got) != 0 {
			t.Errorf("ScanString(%q) = %+v, want nothing", s, got)
		}
	}
}

func TestScanStringSeveralSecrets(t *testing.T) {
	d := NewDetector()
	s := "a " + fakeOpenRouter + " b " + fakeJWT + " c " + fakeAWSID
	got := d.ScanString(s)
	var kinds []string
	for _, m := range got {
		kinds = append(kinds, m.Kind)
	}
	if want := []string{KindOpenRouterKey, KindJWT, KindAWSAccessKeyID}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	masked := Mask(s, got)
	if want := "a [redacted:openrouter_key] b [redacted:jwt] c [redacted:aws_access_key_id]"; masked != want {
		t.Errorf("Mask = %q, want %q", masked, want)
	}
	if d.ContainsSecret(masked) {
		t.Error("the masked string still holds a secret")
	}
}

func TestScanPointers(t *testing.T) {
	d := NewDetector()
	doc := `{
		"a": {"b/c": ["prefix ` + fakeGitHub + ` suffix", 1, null, true]},
		"m~n": {"` + fakeAWSID + `": {"inner": "` + fakeGoogle + `"}},
		"creds": {"SecretAccessKey": "` + fakeAWSSecret + `", "other": "` + fakeAWSSecret + `"},
		"clean": "nothing here"
	}`
	got, err := d.ScanJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{
		{Pointer: "/a/b~1c/0", Kind: KindGitHubToken, Start: 7, End: 7 + len(fakeGitHub)},
		{Pointer: "/creds/SecretAccessKey", Kind: KindAWSSecretKey, Start: 0, End: 40},
		{Pointer: "/m~0n/[redacted:aws_access_key_id]", Kind: KindAWSAccessKeyID, Start: 0, End: 20, InKey: true},
		{Pointer: "/m~0n/[redacted:aws_access_key_id]/inner", Kind: KindGoogleAPIKey, Start: 0, End: len(fakeGoogle)},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Scan =\n%+v\nwant\n%+v", got, want)
	}
	for _, f := range got {
		for _, secret := range []string{fakeGitHub, fakeAWSID, fakeGoogle, fakeAWSSecret} {
			if strings.Contains(f.String(), secret) {
				t.Errorf("%v shows the secret", f)
			}
		}
	}
}

func TestScanValueKinds(t *testing.T) {
	d := NewDetector()
	// A typed value is scanned in its JSON form; a generic tree as it is.
	type wrapper struct {
		Note string `json:"note"`
	}
	for _, v := range []any{
		wrapper{Note: fakeSlack},
		map[string]any{"note": fakeSlack},
		json.RawMessage(`{"note":"` + fakeSlack + `"}`),
	} {
		got, err := d.Scan(v)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Pointer != "/note" || got[0].Kind != KindSlackToken {
			t.Errorf("Scan(%T) = %+v", v, got)
		}
	}
	got, err := d.Scan(fakeJWT)
	if err != nil || len(got) != 1 || got[0].Pointer != "" {
		t.Errorf("Scan(string) = %+v, %v", got, err)
	}
	if _, err := d.ScanJSON([]byte(`{"a":`)); err == nil {
		t.Error("ScanJSON accepted truncated JSON")
	}
	if _, err := d.ScanJSON([]byte(`1 2`)); err == nil {
		t.Error("ScanJSON accepted two values")
	}
}

func TestScanBundle(t *testing.T) {
	b := newBundle(t, 3)
	got, err := Scan(b)
	if err != nil {
		t.Fatal(err)
	}
	at := make(map[string]string)
	for _, f := range got {
		at[f.Pointer] = f.Kind
	}
	for ptr, kind := range map[string]string{
		"/evidence/transcript/0/content":                             KindOpenRouterKey,
		"/manifest/description":                                      KindJWT,
		"/interaction_trace/edges/2/typed_action/params/note":        KindGitHubToken,
		"/interaction_trace/edges/0/x_debug/header":                  KindSlackWebhook,
		"/evidence/trace/spans/0/attributes/http.request.header":     KindGoogleAPIKey,
		"/evidence/events/0/data/notes/[redacted:aws_access_key_id]": KindAWSAccessKeyID,
		"/evidence/events/0/data/aws_secret_access_key":              KindAWSSecretKey,
		"/evidence/scenario/inputs/api_note":                         KindOpenRouterKey,
	} {
		if at[ptr] != kind {
			t.Errorf("%s: found %q, want %q", ptr, at[ptr], kind)
		}
	}
	s := Summarize(got)
	if !s.Found() || s.Strings != len(at) {
		t.Errorf("summary %+v for %d pointers", s, len(at))
	}
	want := "12 strings look like secrets: aws_access_key_id, aws_secret_access_key, github_token, google_api_key, jwt, openrouter_key, private_key, slack_webhook"
	if s.String() != want {
		t.Errorf("summary %q, want %q", s, want)
	}
}

func TestSummaryString(t *testing.T) {
	tests := []struct {
		fs   []Finding
		want string
	}{
		{nil, "no strings look like secrets"},
		{[]Finding{{Pointer: "/a", Kind: KindJWT}}, "1 string looks like a secret: jwt"},
		{[]Finding{{Pointer: "/a", Kind: KindOpenRouterKey}, {Pointer: "/a", Kind: KindJWT, Start: 90}, {Pointer: "/b", Kind: KindJWT}},
			"2 strings look like secrets: jwt, openrouter_key"},
	}
	for _, tt := range tests {
		if got := Summarize(tt.fs).String(); got != tt.want {
			t.Errorf("Summarize(%v) = %q, want %q", tt.fs, got, tt.want)
		}
	}
}

func TestIsMarker(t *testing.T) {
	for s, want := range map[string]bool{
		Redacted:                                 true,
		"key [redacted:openrouter_key] was here": true,
		"[redacted:not_a_kind]":                  false,
		"[redacted":                              false,
		"redacted":                               false,
		"":                                       false,
		"[redacted:jwt":                          false,
		"[redacted:x] and [redacted:github_token]": true,
	} {
		if got := IsMarker(s); got != want {
			t.Errorf("IsMarker(%q) = %v, want %v", s, got, want)
		}
	}
}
