// Package skillpage computes what the skill page (/skills/{id}) and the
// replay page (/skills/{id}/replay) show, so that the browser app only
// arranges it and the logic is tested natively:
//
//   - Conformance: the conformance panel of a verified bundle — each of the
//     six proof gates and four invariants, claimed beside re-verified, with
//     every overclaim marked as a failure, and the one overall verdict.
//   - Audit: the bundle's glass-box record — every PULSE event, every
//     authorization block, every tool call's request and response hash.
//   - EdgeRows: recorded edges beside replayed edges, with surprises.
//   - Prepare: what a replay needs from a stored skill and the inputs a
//     user typed (typed inputs, the simulator world, the policy
//     authorizer), every mistake an *teach.InputError naming its field.
//
// Nothing here decides a verdict: verdicts come from package verify and
// replay statuses from package replay, shown literally.
package skillpage
