package main

import "testing"

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
