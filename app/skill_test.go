package main

import (
	"testing"

	"workbench/pkg/store"
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

func TestFirstPair(t *testing.T) {
	versions := func(ns ...int) []store.StoredBundle {
		out := make([]store.StoredBundle, len(ns))
		for i, n := range ns {
			out[i].SkillVersion = n
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		versions []store.StoredBundle
		shown    int
		from, to int
	}{
		{"the newest against the one before", versions(1, 2, 3), 3, 2, 3},
		{"a middle one against the one before", versions(1, 2, 3), 2, 1, 2},
		{"the oldest against the one after", versions(1, 2, 3), 1, 1, 2},
		{"gaps in the numbers", versions(2, 5, 9), 2, 2, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if from, to := firstPair(tc.versions, tc.shown); from != tc.from || to != tc.to {
				t.Errorf("firstPair(…, %d) = %d, %d; want %d, %d", tc.shown, from, to, tc.from, tc.to)
			}
		})
	}
}
