package main

import (
	"testing"

	"workbench/pkg/export"
	"workbench/pkg/redact"
	"workbench/pkg/skill"
)

func TestSkillIDOf(t *testing.T) {
	const id = "0190a1b2-0000-7000-8000-000000000000"
	for _, tc := range []struct{ path, want string }{
		{"/skills/" + id, id},
		{"/skills/" + id + "/replay", id},
		{"/skills/", ""},
	} {
		if got := skillIDOf(tc.path); got != tc.want {
			t.Errorf("skillIDOf(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// The export dialog never opens on none, opens on the stored profile when
// it is stricter than the advice, and asks for a confirmation only for
// secrets exported verbatim.
func TestExportState(t *testing.T) {
	clean := export.Advice{Profile: skill.RedactionTranscriptPII}
	secrets := export.Advice{Profile: skill.RedactionTranscriptPII, Secrets: redact.Summary{Strings: 1, Findings: 1, Kinds: []string{"jwt"}}}
	for _, tc := range []struct {
		name         string
		advice       export.Advice
		stored       string
		choose       string
		wantOpen     string
		wantConfirm  bool
		wantDisabled []string
	}{
		{"plain bundle", clean, skill.RedactionNone, skill.RedactionNone, skill.RedactionTranscriptPII, false, nil},
		{"secrets, none chosen", secrets, skill.RedactionNone, skill.RedactionNone, skill.RedactionTranscriptPII, true, nil},
		{"secrets, full chosen", secrets, skill.RedactionNone, skill.RedactionFull, skill.RedactionTranscriptPII, false, nil},
		{"stored transcript_pii", clean, skill.RedactionTranscriptPII, skill.RedactionTranscriptPII, skill.RedactionTranscriptPII, false, []string{skill.RedactionNone}},
		{"stored full", clean, skill.RedactionFull, skill.RedactionFull, skill.RedactionFull, false, []string{skill.RedactionNone, skill.RedactionTranscriptPII}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newExportState(tc.advice, tc.stored)
			if s.profile != tc.wantOpen {
				t.Errorf("opens on %q, want %q", s.profile, tc.wantOpen)
			}
			s.profile = tc.choose
			if got := s.needsConfirm(); got != tc.wantConfirm {
				t.Errorf("needsConfirm = %v, want %v", got, tc.wantConfirm)
			}
			var disabled []string
			for _, p := range []string{skill.RedactionNone, skill.RedactionTranscriptPII, skill.RedactionFull} {
				if profileRank(p) < profileRank(s.floor) {
					disabled = append(disabled, p)
				}
			}
			if len(disabled) != len(tc.wantDisabled) {
				t.Errorf("disabled %q, want %q", disabled, tc.wantDisabled)
			}
		})
	}
}
