package skill

// GateIDs are the six proof gates of spec §5.4, in the spec's order: the
// order every list of gates the workbench shows or compares is put in.
func GateIDs() []string {
	return []string{GateAuthority, GateTraceCompleteness, GateReplayFidelity,
		GateRedactionVerify, GateContentHash, GateNoHiddenCapability}
}

// InvariantIDs are the four invariants of spec §5.4, in the spec's order.
func InvariantIDs() []string {
	return []string{InvEveryActionAuthorized, InvStateHashPerEdge,
		InvBundleHashReproducible, InvRedactedBundleStillVerify}
}
