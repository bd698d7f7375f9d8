// Package skill defines the workbench's portable artifacts: the SkillBundle
// (spec §5.1) and everything it carries — the SkillManifest (§5.2), the
// OS-011 InteractionTrace with its edges, the ReplayReport with its
// SurpriseSignals (§5.3), the ProofResult (§5.4) and the EvidenceBundle (§6).
//
// JSON member names are exactly the spec's. Objects that another
// implementation's schemas close (the bundle's top level, the manifest, the
// proof and its gates, the evidence's top level, the replay report) carry only
// the spec's members; extensions live where objects are open (trace edges,
// event data, evidence.scenario) and survive a decode/encode round trip.
//
// A bundle is sealed by computing its content hash: "sha256:" followed by the
// lowercase hex SHA-256 of the RFC 8785 canonical JSON of the bundle with its
// top-level content_hash and signature members removed. Decoding a bundle from
// disk is strict (see Decode): the bytes are hostile until proven otherwise.
package skill
