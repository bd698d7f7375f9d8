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
// # Personal patterns
//
// ScanPII finds e-mail addresses and the value after password, passwd or
// pwd (see PIIKinds). They are not secrets for the export dialog's warning,
// but transcript_pii and full mask them wherever they are, like secrets,
// and Clean masks secrets and both patterns in one string: the text a
// command prints about a run, or a skill's default name is made from.
//
// # Runs of known secrets
//
// A name or slug cut through a key, or a key split across two strings,
// leaves a piece the detector no longer sees as a key. Known collects the
// secrets of a bundle before it is redacted; its Find reports every run of
// MinFragment (16) or more bytes of one of them in any text, in time linear
// in the text. Apply collects them itself and masks such runs everywhere;
// CheckKnown and CheckText report them, for gate.redaction_verify at export.
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
//	any string anywhere holding a secret, a run of 16
//	  or more bytes of a secret of the unredacted
//	  bundle, an e-mail address or a password value   —         masked          masked
//	the same in a member named slug holding a slug      —         words dropped   words dropped
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
// secret is renamed the same way. A slug cannot hold a mask, so a slug
// (manifest.slug, evidence.scenario.manifest.slug, any member named slug
// whose value is kebab-case) loses every hyphen-separated word a match
// touches and stays a valid slug ("skill" when nothing is left); it is not
// listed in fields_stripped, which lists only positions holding a redaction
// marker. Under none nothing changes, though Scan
// still reports what it finds. No required member is ever removed, so the
// redacted bundle stays schema-valid; replay stays possible under
// transcript_pii because input-bound parameters are bound afresh from the
// new input, while after full the bundle proves only that the skill exists
// and how it scored.
//
// Check is the other side, for gate.redaction_verify: given a bundle that
// claims a profile, it reports every position that profile strips which
// still holds content and every residual secret, e-mail address and
// password value in any string, by reading the content rather than
// trusting fields_stripped. CheckKnown adds the runs of the original's
// secrets, and CheckText checks text that travels with the bundle, such as
// the name of the file it is saved under.
package redact
