package redact

import (
	"strings"
	"testing"

	"workbench/pkg/skill"
)

func TestCheck(t *testing.T) {
	type want struct{ pointer, kind string }
	tests := []struct {
		name    string
		profile string // applied before the change; "" leaves the bundle unredacted
		change  func(b *skill.Bundle)
		want    []want // exactly these problems
		some    []want // at least these problems
	}{
		{name: "transcript_pii output", profile: skill.RedactionTranscriptPII},
		{name: "full output", profile: skill.RedactionFull},
		{name: "unredacted bundle claiming none", profile: ""},
		{
			name: "transcript content back under transcript_pii", profile: skill.RedactionTranscriptPII,
			change: func(b *skill.Bundle) {
				b.Evidence.Transcript[1].Content = strp("I will open the forecast page.")
				b.Evidence.Transcript[1].Redacted = false
			},
			want: []want{{"/evidence/transcript/1/content", ProblemContent}},
		},
		{
			name: "residual secret", profile: skill.RedactionTranscriptPII,
			change: func(b *skill.Bundle) { b.Manifest.Name = "Deploy with " + fakeGitHub },
			want:   []want{{"/manifest/name", ProblemSecret}},
		},
		{
			name: "residual secret in a member name", profile: skill.RedactionTranscriptPII,
			change: func(b *skill.Bundle) {
				b.Evidence.Events[0].Data.(map[string]any)[fakeSlack] = 1
			},
			want: []want{{"/evidence/events/0/data/[redacted:slack_token]", ProblemSecret}},
		},
		{
			name: "secret where personal content should be gone", profile: skill.RedactionTranscriptPII,
			change: func(b *skill.Bundle) { b.Trace.Edges[1].ObservedOutcome = "token " + fakeJWT },
			want:   []want{{"/interaction_trace/edges/1/observed_outcome", ProblemContent}},
		},
		{
			name: "user input back in a parameter", profile: skill.RedactionTranscriptPII,
			change: func(b *skill.Bundle) { b.Trace.Edges[1].Tool.Arguments["text"] = "Porto" },
			want:   []want{{"/interaction_trace/edges/1/tool/arguments/text", ProblemContent}},
		},
		{
			name: "replay input back", profile: skill.RedactionFull,
			change: func(b *skill.Bundle) {
				data := b.Evidence.Events[1].Data.(map[string]any)
				data["replay_report"].(map[string]any)["input"].(map[string]any)["city"] = "Lisbon"
			},
			want: []want{{"/evidence/events/1/data/replay_report/input/city", ProblemContent}},
		},
		{
			name: "free text back in event data under full", profile: skill.RedactionFull,
			change: func(b *skill.Bundle) {
				b.Evidence.Events[1].Data.(map[string]any)["comment"] = "the user lives in Porto"
			},
			want: []want{{"/evidence/events/1/data/comment", ProblemContent}},
		},
		{
			name: "proof records another profile", profile: skill.RedactionTranscriptPII,
			change: func(b *skill.Bundle) { b.Proof.RedactionResult.Profile = skill.RedactionFull },
			want:   []want{{"/proof/redaction_result/profile", ProblemProfileMismatch}},
		},
		{
			name: "unknown profile", profile: skill.RedactionTranscriptPII,
			change: func(b *skill.Bundle) { b.Evidence.RedactionProfile = "partial" },
			want:   []want{{"/evidence/redaction_profile", ProblemUnknownProfile}},
		},
		{
			name: "claims full after transcript_pii", profile: skill.RedactionTranscriptPII,
			change: func(b *skill.Bundle) {
				b.Evidence.RedactionProfile = skill.RedactionFull
				b.Proof.RedactionResult.Profile = skill.RedactionFull
			},
			some: []want{
				{"/interaction_trace/goal", ProblemContent},
				{"/interaction_trace/edges/0/typed_action/params/url", ProblemContent},
				{"/evidence/judge/rationale", ProblemContent},
			},
		},
		{
			name: "claims transcript_pii without redacting", profile: "",
			change: func(b *skill.Bundle) {
				b.Evidence.RedactionProfile = skill.RedactionTranscriptPII
			},
			some: []want{
				{"/proof/redaction_result/profile", ProblemProfileMismatch},
				{"/evidence/transcript/0/content", ProblemContent},
				{"/interaction_trace/edges/1/typed_action/params/text", ProblemContent},
				{"/manifest/description", ProblemSecret},
				{"/evidence/events/0/data/notes/[redacted:aws_access_key_id]", ProblemSecret},
				{"/evidence/events/0/data/aws_secret_access_key", ProblemSecret},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBundle(t, 3)
			if tt.profile != "" {
				if _, err := Apply(b, tt.profile); err != nil {
					t.Fatal(err)
				}
			}
			if tt.change != nil {
				tt.change(b)
				if err := b.Seal(); err != nil {
					t.Fatal(err)
				}
			}
			got := Check(b)
			for _, p := range got {
				for _, s := range seeded {
					if strings.Contains(p.String(), s) || strings.Contains(p.Pointer, s) {
						t.Errorf("problem %q shows a seeded secret", p)
					}
				}
			}
			has := func(w want) bool {
				for _, p := range got {
					if p.Pointer == w.pointer && p.Kind == w.kind {
						return true
					}
				}
				return false
			}
			if tt.some != nil {
				for _, w := range tt.some {
					if !has(w) {
						t.Errorf("no %s problem at %s in\n%s", w.kind, w.pointer, problems(got))
					}
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Check found %d problems, want %d:\n%s", len(got), len(tt.want), problems(got))
			}
			for _, w := range tt.want {
				if !has(w) {
					t.Errorf("no %s problem at %s in\n%s", w.kind, w.pointer, problems(got))
				}
			}
		})
	}
}

func problems(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.Kind + " " + p.String() + "\n")
	}
	return b.String()
}

func TestCheckNeverQuotesAClaimedSecret(t *testing.T) {
	b := newBundle(t, 3)
	b.Evidence.RedactionProfile = fakeOpenRouter
	ps := Check(b)
	if len(ps) != 1 || ps[0].Kind != ProblemUnknownProfile {
		t.Fatalf("Check = %v", ps)
	}
	if strings.Contains(ps[0].String(), fakeOpenRouter) {
		t.Errorf("%q quotes the secret", ps[0])
	}
	b.Evidence.RedactionProfile = skill.RedactionNone
	b.Proof.RedactionResult.Profile = fakeGitHub
	ps = Check(b)
	if len(ps) != 1 || ps[0].Kind != ProblemProfileMismatch || strings.Contains(ps[0].String(), fakeGitHub) {
		t.Fatalf("Check = %v", ps)
	}
}
