package skill

// Normalize replaces nil slices and maps that the schemas require as arrays
// or objects with empty ones, so that a bundle built in Go code encodes as
// a valid bundle rather than with nulls. Seal, Hash and Encode call it.
func (b *Bundle) Normalize() {
	b.Manifest.Normalize()

	emptySlice(&b.Trace.Edges)
	for i := range b.Trace.Edges {
		e := &b.Trace.Edges[i]
		emptyMap(&e.TypedAction.Params)
		emptySlice(&e.TypedAction.Preconditions)
		emptyMap(&e.ParamSources)
		emptyMap(&e.Tool.Arguments)
	}

	p := &b.Proof
	emptySlice(&p.ProofGates)
	emptySlice(&p.InvariantResults)
	emptySlice(&p.AuthorityResult.Denials)
	emptySlice(&p.RedactionResult.FieldsStripped)
	emptySlice(&p.ConformanceCheck.FixturesPassed)
	emptySlice(&p.ConformanceCheck.FixturesFailed)

	ev := &b.Evidence
	emptyMap(&ev.Scenario.Manifest)
	emptyMap(&ev.PulseManifestSnapshot)
	emptyMap(&ev.Authorization)
	emptySlice(&ev.CapabilitySnapshot.Primitives)
	emptySlice(&ev.CapabilitySnapshot.Subtypes)
	emptySlice(&ev.Trace.Spans)
	emptySlice(&ev.Events)
	emptySlice(&ev.Transcript)
	emptySlice(&ev.ToolCalls)
	emptySlice(&ev.GraphonomousRefs)
	emptySlice(&ev.EvidenceRefs)
}

// Normalize does for a manifest what Bundle.Normalize does for a bundle.
func (m *Manifest) Normalize() {
	emptySlice(&m.Inputs)
	emptySlice(&m.Outputs)
	emptySlice(&m.Preconditions)
	emptySlice(&m.ValidatedAgainst)
	emptySlice(&m.RegressionProbes)
	emptySlice(&m.CapabilitiesRequired)
}

// Normalize does for a replay report what Bundle.Normalize does for a bundle.
func (r *ReplayReport) Normalize() {
	emptyMap(&r.Input)
	emptySlice(&r.SurpriseSignals)
}

func emptySlice[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}

func emptyMap[K comparable, V any](m *map[K]V) {
	if *m == nil {
		*m = map[K]V{}
	}
}
