package redact_test

import (
	"testing"

	"workbench/pkg/redact"
)

// The profiles are ordered from keeping most to keeping least, and a
// string naming no profile has no rank.
func TestProfileRank(t *testing.T) {
	for _, tc := range []struct {
		profile string
		rank    int
	}{
		{"none", 0}, {"transcript_pii", 1}, {"full", 2}, {"", -1}, {"Full", -1}, {"partial", -1},
	} {
		if got := redact.ProfileRank(tc.profile); got != tc.rank {
			t.Errorf("ProfileRank(%q) = %d, want %d", tc.profile, got, tc.rank)
		}
		if redact.ValidProfile(tc.profile) != (tc.rank >= 0) {
			t.Errorf("ValidProfile(%q) disagrees with its rank", tc.profile)
		}
	}
}
