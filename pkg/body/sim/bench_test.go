package sim_test

import (
	"context"
	"testing"

	"workbench/pkg/body/sim"
)

// BenchmarkStep is one action edge as demonstration and replay see it:
// the state hash before, a tool call, the state hash after.
func BenchmarkStep(b *testing.B) {
	v := validator(b)
	s := load(b, v, "weather")
	ctx := context.Background()
	cities := []string{"Paris", "London"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := s.StateHash(); err != nil {
			b.Fatal(err)
		}
		r, err := s.Call(ctx, sim.BrowserType, obj{"field": "City", "text": cities[i%2]})
		if err != nil || r.IsError {
			b.Fatal(err, r.Text)
		}
		if _, err := s.StateHash(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStateHashGeneric hashes State the way a body-agnostic caller
// does (skill.StateHash and skill.ShapeHash of the JSON value).
func BenchmarkStateHashGeneric(b *testing.B) {
	v := validator(b)
	s := load(b, v, "docs-and-git")
	b.ReportAllocs()
	for b.Loop() {
		hashes(b, s)
	}
}

func BenchmarkClone(b *testing.B) {
	v := validator(b)
	s := load(b, v, "docs-and-git")
	b.ReportAllocs()
	for b.Loop() {
		s.Clone()
	}
}

func BenchmarkNewWithValidator(b *testing.B) {
	v := validator(b)
	data := worldBytes(b, "docs-and-git")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sim.NewWithValidator(data, v); err != nil {
			b.Fatal(err)
		}
	}
}
