// Package redact finds secrets in JSON documents and applies the redaction
// profiles of spec §7.3 to a SkillBundle, so that a bundle can be shared
// without the demonstration's personal content and still verify.
//
// # Secrets
//
// A Detector reports strings that look like credentials (see Kinds):
// OpenRouter, OpenAI and Anthropic API keys, AWS access key ids and labelled
// AWS secret keys, JWTs, GitHub and Slack tokens, Slack webhook URLs, PEM
// private keys and Google API keys. Scan walks every member value and member
// name of a JSON document and returns each secret with the JSON pointer of
// its string and its byte range; Summarize condenses the findings into the
// export dialog's warning, and MaskString masks a single string. Detection
// is linear in the input whatever it holds, so scanning an imported bundle
// is safe. No finding, problem or error ever contains a secret.
//
// # Profiles
//
// Apply redacts a bundle in place under one of three profiles, records the
// profile in evidence.redaction_profile and proof.redaction_result, re-seals
// the bundle and re-reads its exported bytes to confirm that the new content
// hash verifies. Each position of a bundle belongs to a class:
//
//	position                                            class     transcript_pii  full
//	evidence.transcript[*].content                      personal  null, redacted: true
//	interaction_trace.edges[*].observed_outcome         personal  "[redacted]"
//	edges[*] typed_action.params / tool.arguments
//	  members whose param_sources entry is input:<name> personal  "[redacted]"
//	evidence.events[*].data.replay_report.input members personal  "[redacted]"
//	  …replay_report.surprise_signals[*].evidence       personal  "[redacted]"
//	evidence.scenario.inputs members                    personal  "[redacted]"
//	evidence.evidence_refs[*].selector exact/prefix/suffix
//	                                                    personal  "[redacted]"
//	edges[*] other params and tool arguments            internal  kept            "[redacted]"
//	edges[*].typed_action target, semantic_locator.name,
//	  preconditions[*]; edges[*].authorization.reason   internal  kept            "[redacted]"
//	interaction_trace.goal, environment.initial_url,
//	  evidence.scenario.task.description                internal  kept            "[redacted]"
//	span attributes, event data, evidence.authorization,
//	  judge, score, evidence_refs selectors, and members
//	  of trace and edges other producers added          internal  kept            free text "[redacted]"
//	hashes, ids, timestamps, event types, numbers,
//	  manifest, proof, system, capability_snapshot,
//	  pulse_manifest_snapshot, scenario id and manifest public    kept            kept
//	any string anywhere holding a secret                —         secret masked   secret masked
//
// "Free text" in an open object is every string except identifiers, hashes,
// RFC 3339 times and closed vocabularies: short tokens without white space
// that have the shape of a sha256 hash, a hex id or a UUID, or that sit in a
// member named like id, *_id, *_hash, *_at, type, status, kind, level,
// decision, verdict, match and the like. Numbers and booleans are kept, so
// that replay fidelity can still be re-derived from a replay record's counts
// and hashes after full redaction, and judge scores survive.
//
// A stripped value becomes the string Redacted ("[redacted]"), which every
// open position accepts and which says that something was there; a
// transcript turn's content becomes null, as its schema requires, with
// redacted set. Null and empty strings hold nothing and are left alone. A
// secret is masked in place as [redacted:<kind>] (MaskPrefix, kind,
// MaskSuffix), keeping the rest of its string; a member name holding a
// secret is renamed the same way. Under none nothing changes, though Scan
// still reports what it finds. No required member is ever removed, so the
// redacted bundle stays schema-valid; replay stays possible under
// transcript_pii because input-bound parameters are bound afresh from the
// new input, while after full the bundle proves only that the skill exists
// and how it scored.
//
// Check is the other side, for gate.redaction_verify: given a bundle that
// claims a profile, it reports every position that profile strips which
// still holds content and every residual secret, by reading the content
// rather than trusting fields_stripped.
package redact
