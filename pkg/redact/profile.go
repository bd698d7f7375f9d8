package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/skill"
)

// Markers left where content was removed.
const (
	// Redacted replaces a stripped string or open value.
	Redacted = "[redacted]"
	// MaskPrefix and MaskSuffix enclose the kind of a masked secret:
	// "[redacted:jwt]" stands where a JWT was.
	MaskPrefix = "[redacted:"
	MaskSuffix = "]"
)

// Field classes of spec §7.3.
const (
	ClassPersonal = "personal" // stripped by transcript_pii and full
	ClassInternal = "internal" // internal-with-bodies: stripped by full
)

// IsMarker reports whether s is the product of redaction: the Redacted
// marker itself, or a string in which a secret was masked.
func IsMarker(s string) bool {
	return s == Redacted || HasMask(s)
}

// HasMask reports whether s holds the mask of a secret, [redacted:<kind>]
// for one of the Kinds.
func HasMask(s string) bool {
	for {
		i := strings.Index(s, MaskPrefix)
		if i < 0 {
			return false
		}
		s = s[i+len(MaskPrefix):]
		// Kinds are short: looking no further keeps this linear.
		if j := strings.Index(s[:min(len(s), 32)], MaskSuffix); j >= 0 && isKind(s[:j]) {
			return true
		}
	}
}

// isKind reports whether k is one of the Kinds or PIIKinds.
func isKind(k string) bool {
	return isSecretKind(k) || k == KindEmail || k == KindPassword
}

// isSecretKind reports whether k is one of the Kinds.
func isSecretKind(k string) bool {
	switch k {
	case KindOpenRouterKey, KindOpenAIKey, KindAnthropicKey, KindAWSAccessKeyID, KindAWSSecretKey,
		KindJWT, KindGitHubToken, KindSlackToken, KindSlackWebhook, KindPrivateKey, KindGoogleAPIKey:
		return true
	}
	return false
}

// Profiles are the redaction profiles, from the one that keeps most to
// the one that keeps least: none, transcript_pii, full.
func Profiles() []string {
	return []string{skill.RedactionNone, skill.RedactionTranscriptPII, skill.RedactionFull}
}

// ProfileRank is p's place in Profiles (0 for none, 2 for full): a higher
// rank strips more. It is -1 for a string that names no profile.
func ProfileRank(p string) int {
	return slices.Index(Profiles(), p)
}

// ValidProfile reports whether p names a redaction profile.
func ValidProfile(p string) bool {
	switch p {
	case skill.RedactionNone, skill.RedactionTranscriptPII, skill.RedactionFull:
		return true
	}
	return false
}

// ErrUnknownProfile is returned (wrapped) by Apply for a profile other than
// none, transcript_pii and full.
var ErrUnknownProfile = errors.New("unknown redaction profile")

// ErrNotVerified is returned (wrapped) by Apply when the re-sealed bundle
// does not decode back to the same content hash.
var ErrNotVerified = errors.New("redacted bundle does not verify")

// Apply redacts b under profile with a Detector made for the call. See
// Detector.Apply.
func Apply(b *skill.Bundle, profile string) (skill.RedactionResult, error) {
	return NewDetector().Apply(b, profile)
}

// Apply redacts b in place under profile (see the package documentation for
// what each profile strips), records the profile in
// b.Evidence.RedactionProfile and b.Proof.RedactionResult, and re-seals b.
// The caller owns b: clone it first to keep the original.
//
// RedactionResult.FieldsStripped lists, sorted, the JSON pointer of every
// value of b that holds a redaction product afterwards: each stripped
// position holding Redacted (or a null transcript content), and each string
// in which a secret is masked. Redaction is idempotent, so applying the same
// profile twice gives the same bundle and the same list.
//
// After sealing, Apply encodes b, decodes the bytes strictly and recomputes
// the content hash from both the document and the decoded bundle;
// PostRedactionHashMatches says whether all agree with b.ContentHash. If
// they do not, b holds the redacted bundle sealed with
// PostRedactionHashMatches false and the error wraps ErrNotVerified. On any
// other error b is unchanged.
func (d *Detector) Apply(b *skill.Bundle, profile string) (skill.RedactionResult, error) {
	if !ValidProfile(profile) {
		return skill.RedactionResult{}, fmt.Errorf("redact: %w %q (want none, transcript_pii or full)", ErrUnknownProfile, profile)
	}
	nb := *b
	stripped := []string{}
	if profile != skill.RedactionNone {
		root, err := toTree(b)
		if err != nil {
			return skill.RedactionResult{}, fmt.Errorf("redact: encode bundle: %w", err)
		}
		// The list of the previous redaction, if any, is replaced below;
		// its pointers must not count as masked strings themselves.
		if rr := asObj(asObj(asObj(root)["proof"])["redaction_result"]); rr != nil {
			rr["fields_stripped"] = []any{}
		}
		// The secrets are collected before anything is masked, so that a
		// run of one left elsewhere — a name or slug cut through a key, a
		// key split across strings — is masked too.
		f := finder{d: d, pii: true, known: d.knownOf(root)}
		r := newRedactor(f, profile, false)
		r.run(root)
		w := walker{f: f, mask: true}
		w.value(root, "")
		for p := range w.masked {
			r.listed[p] = struct{}{}
		}
		if nb, err = fromTree(root); err != nil {
			return skill.RedactionResult{}, fmt.Errorf("redact: the %s bundle no longer decodes: %w", profile, err)
		}
		for p := range r.listed {
			stripped = append(stripped, p)
		}
		slices.Sort(stripped)
	}
	nb.Evidence.RedactionProfile = profile
	nb.Proof.RedactionResult = skill.RedactionResult{Profile: profile, FieldsStripped: stripped, PostRedactionHashMatches: true}
	if err := nb.Seal(); err != nil {
		return skill.RedactionResult{}, fmt.Errorf("redact: seal the %s bundle: %w", profile, err)
	}
	if verr := verifies(&nb); verr != nil {
		nb.Proof.RedactionResult.PostRedactionHashMatches = false
		if err := nb.Seal(); err != nil {
			return skill.RedactionResult{}, fmt.Errorf("redact: seal the %s bundle: %w", profile, err)
		}
		*b = nb
		return nb.Proof.RedactionResult, fmt.Errorf("redact: %w under %s: %w", ErrNotVerified, profile, verr)
	}
	*b = nb
	return nb.Proof.RedactionResult, nil
}

// fromTree decodes a generic tree back into a bundle.
func fromTree(root any) (skill.Bundle, error) {
	var nb skill.Bundle
	data, err := json.Marshal(root)
	if err != nil {
		return nb, err
	}
	err = json.Unmarshal(data, &nb)
	return nb, err
}

// verifies re-reads a sealed bundle the way an importer would: exported
// bytes, strict decode, hash of the document and of the decoded bundle.
func verifies(b *skill.Bundle) error {
	data, err := b.Encode()
	if err != nil {
		return err
	}
	back, doc, err := skill.Decode(data)
	if err != nil {
		return err
	}
	docHash, err := skill.DocumentHash(doc)
	if err != nil {
		return err
	}
	backHash, err := back.Hash()
	if err != nil {
		return err
	}
	switch {
	case back.ContentHash != b.ContentHash:
		return errors.New("the exported content_hash differs from the sealed one")
	case docHash != b.ContentHash:
		return errors.New("the hash of the exported document differs from content_hash")
	case backHash != b.ContentHash:
		return errors.New("the re-imported bundle hashes differently")
	}
	return nil
}

// redactor applies the class rules of a profile to a bundle's tree. In
// check mode it still rewrites the tree (a private copy) but records every
// change as a Problem: a value the profile would strip still held content.
type redactor struct {
	f        finder
	profile  string
	check    bool
	listed   map[string]struct{}
	problems []Problem

	// Members the skill types know; others are extensions from other
	// producers and are treated as free text under full.
	traceMembers, edgeMembers []string
}

func newRedactor(f finder, profile string, check bool) *redactor {
	return &redactor{
		f:            f,
		profile:      profile,
		check:        check,
		listed:       make(map[string]struct{}),
		traceMembers: jsonNames(reflect.TypeFor[skill.Trace]()),
		edgeMembers:  jsonNames(reflect.TypeFor[skill.Edge]()),
	}
}

// jsonNames lists the member names a struct type encodes.
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

func (r *redactor) run(root any) {
	b := asObj(root)
	if b == nil {
		return
	}
	r.personal(b)
	if r.profile == skill.RedactionFull {
		r.internal(b)
	}
}

// personal strips what transcript_pii and full both strip.
func (r *redactor) personal(b map[string]any) {
	ev := asObj(b["evidence"])
	for i, t := range asArr(ev["transcript"]) {
		r.turn(asObj(t), path{"evidence", "transcript", strconv.Itoa(i)})
	}
	for i, e := range asArr(asObj(b["interaction_trace"])["edges"]) {
		em := asObj(e)
		p := path{"interaction_trace", "edges", strconv.Itoa(i)}
		r.strip(em, "observed_outcome", p, ClassPersonal)
		// Parameters bound from the user's input: replay binds them from
		// the new input, so removing the recorded values keeps the skill
		// replayable.
		params := asObj(asObj(em["typed_action"])["params"])
		args := asObj(asObj(em["tool"])["arguments"])
		sources := asObj(em["param_sources"])
		for _, name := range keysOf(sources) {
			src, _ := sources[name].(string)
			r.key(sources, name, p.child("param_sources"))
			if strings.HasPrefix(src, skill.SourceInputPrefix) {
				r.strip(params, name, p.child("typed_action", "params"), ClassPersonal)
				r.strip(args, name, p.child("tool", "arguments"), ClassPersonal)
			}
		}
	}
	for i, e := range asArr(ev["events"]) {
		rr := asObj(asObj(asObj(e)["data"])["replay_report"])
		p := path{"evidence", "events", strconv.Itoa(i), "data", "replay_report"}
		r.stripMembers(asObj(rr["input"]), p.child("input"), ClassPersonal)
		for j, s := range asArr(rr["surprise_signals"]) {
			r.strip(asObj(s), "evidence", p.child("surprise_signals", strconv.Itoa(j)), ClassPersonal)
		}
	}
	r.stripMembers(asObj(asObj(ev["scenario"])["inputs"]), path{"evidence", "scenario", "inputs"}, ClassPersonal)
	// Text-quote selectors quote the evidence they anchor.
	for i, ref := range asArr(ev["evidence_refs"]) {
		sel := asObj(asObj(ref)["selector"])
		p := path{"evidence", "evidence_refs", strconv.Itoa(i), "selector"}
		for _, k := range []string{"exact", "prefix", "suffix"} {
			r.strip(sel, k, p, ClassPersonal)
		}
	}
}

// internal strips what only full strips: every remaining body of the
// demonstration, keeping hashes, ids, times, types and scores.
func (r *redactor) internal(b map[string]any) {
	tr := asObj(b["interaction_trace"])
	tp := path{"interaction_trace"}
	r.strip(tr, "goal", tp, ClassInternal)
	r.strip(asObj(tr["environment"]), "initial_url", tp.child("environment"), ClassInternal)
	r.freeTextExtras(tr, r.traceMembers, tp)
	for i, e := range asArr(tr["edges"]) {
		em := asObj(e)
		p := tp.child("edges", strconv.Itoa(i))
		ta := asObj(em["typed_action"])
		r.strip(ta, "target", p.child("typed_action"), ClassInternal)
		r.strip(asObj(ta["semantic_locator"]), "name", p.child("typed_action", "semantic_locator"), ClassInternal)
		pre := asArr(ta["preconditions"])
		for j := range pre {
			pre[j] = r.redactValue(pre[j], p.child("typed_action", "preconditions", strconv.Itoa(j)), ClassInternal)
		}
		r.stripMembers(asObj(ta["params"]), p.child("typed_action", "params"), ClassInternal)
		r.stripMembers(asObj(asObj(em["tool"])["arguments"]), p.child("tool", "arguments"), ClassInternal)
		r.strip(asObj(em["authorization"]), "reason", p.child("authorization"), ClassInternal)
		r.freeTextExtras(em, r.edgeMembers, p)
	}

	ev := asObj(b["evidence"])
	ep := path{"evidence"}
	r.strip(asObj(asObj(ev["scenario"])["task"]), "description", ep.child("scenario", "task"), ClassInternal)
	for i, s := range asArr(asObj(ev["trace"])["spans"]) {
		r.freeTextMember(asObj(s), "attributes", ep.child("trace", "spans", strconv.Itoa(i)))
	}
	for i, e := range asArr(ev["events"]) {
		r.freeTextMember(asObj(e), "data", ep.child("events", strconv.Itoa(i)))
	}
	for _, k := range []string{"authorization", "judge", "score"} {
		r.freeTextMember(ev, k, ep)
	}
	for i, ref := range asArr(ev["evidence_refs"]) {
		r.freeTextMember(asObj(ref), "selector", ep.child("evidence_refs", strconv.Itoa(i)))
	}
}

// turn strips one transcript turn's content to null and marks it redacted.
func (r *redactor) turn(t map[string]any, p path) {
	c, has := t["content"]
	if !has {
		return
	}
	if c != nil {
		t["content"] = nil
		t["redacted"] = true
		r.changed(p.child("content"), ClassPersonal)
		return
	}
	if red, _ := t["redacted"].(bool); red {
		r.list(p.child("content"))
	}
}

// strip redacts the member key of m (held at p), if present.
func (r *redactor) strip(m map[string]any, key string, p path, class string) {
	if _, ok := m[key]; ok {
		name := r.key(m, key, p)
		m[name] = r.redactValue(m[name], p.child(name), class)
	}
}

// stripMembers redacts every member of m (held at p).
func (r *redactor) stripMembers(m map[string]any, p path, class string) {
	for _, k := range keysOf(m) {
		r.strip(m, k, p, class)
	}
}

// key returns the name under which the member k of m (held at p) is
// recorded: k itself, or k with its secrets masked, in which case the
// member is renamed so, and in check mode each secret is a problem. Every
// pointer the redactor records goes through here, so none holds a secret.
func (r *redactor) key(m map[string]any, k string, p path) string {
	ms := r.f.find(nil, k, "")
	if len(ms) == 0 {
		return k
	}
	name := renameMember(m, k, r.f.mask(k, "", slices.Clone(ms)))
	if r.check {
		ptr := p.child(name).String()
		for _, mt := range ms {
			f := Finding{Pointer: ptr, Kind: mt.Kind, Start: mt.Start, End: mt.End, InKey: true, Fragment: r.f.fragment(k[mt.Start:mt.End], mt.Kind)}
			r.problems = append(r.problems, findingProblem(f, subject(f), r.profile))
		}
	}
	return name
}

// keysOf lists m's member names, so that members can be renamed while
// they are visited.
func keysOf(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// redactValue is what a stripped position holds afterwards: null and the
// empty string hold nothing and stay; anything else becomes Redacted. The
// marker is a string, which every open position the profiles strip
// accepts, and it says that something was there.
func (r *redactor) redactValue(v any, p path, class string) any {
	switch t := v.(type) {
	case nil:
		return nil
	case string:
		if t == "" {
			return t
		}
		if t == Redacted {
			r.list(p)
			return t
		}
	}
	r.changed(p, class)
	return Redacted
}

// freeTextMember applies freeText to the member key of m, if present.
func (r *redactor) freeTextMember(m map[string]any, key string, p path) {
	if _, ok := m[key]; ok {
		name := r.key(m, key, p)
		m[name] = r.freeText(m[name], name, p.child(name))
	}
}

// freeTextExtras applies freeText to the members of m that known does not
// name.
func (r *redactor) freeTextExtras(m map[string]any, known []string, p path) {
	for _, k := range keysOf(m) {
		if !slices.Contains(known, k) {
			r.freeTextMember(m, k, p)
		}
	}
}

// freeText redacts the free text in an open value, keeping its shape,
// numbers, booleans and the strings keepString accepts. name is the member
// holding v; array elements inherit their array's name.
func (r *redactor) freeText(v any, name string, p path) any {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range keysOf(t) {
			r.freeTextMember(t, k, p)
		}
	case []any:
		for i, c := range t {
			t[i] = r.freeText(c, name, p.child(strconv.Itoa(i)))
		}
	case string:
		if keepString(name, t) {
			return t
		}
		return r.redactValue(t, p, ClassInternal)
	}
	return v
}

func (r *redactor) list(p path) { r.listed[p.String()] = struct{}{} }

func (r *redactor) changed(p path, class string) {
	ptr := p.String()
	r.listed[ptr] = struct{}{}
	if r.check {
		r.problems = append(r.problems, Problem{
			Pointer: ptr,
			Kind:    ProblemContent,
			Class:   class,
			Detail:  fmt.Sprintf("%s content remains under %s", class, r.profile),
		})
	}
}

// keepString reports whether a string in an open object is an identifier,
// hash, timestamp or enumeration value rather than free text: a short token
// with no white space that either has the shape of a hash, UUID or RFC 3339
// time, or is held by a member whose name says it is one.
func keepString(name, s string) bool {
	if len(s) > 128 || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	return looksLikeHash(s) || looksLikeUUID(s) || looksLikeTime(s) || structuralName(name)
}

// structuralName reports whether a member name holds ids, hashes, times or
// a closed vocabulary.
func structuralName(name string) bool {
	switch name {
	case "id", "hash", "type", "status", "kind", "level", "fidelity_level", "expected_level",
		"match", "verdict", "decision", "surprise_kind", "action_type", "body_subtype",
		"capability", "phase", "role", "op", "operation", "version", "specversion", "model",
		"model_used", "authorizer", "strength", "outcome", "outcome_status", "time",
		"timestamp", "datacontenttype", "unit":
		return true
	}
	for _, suffix := range []string{"_id", "_ids", ".id", "_hash", ".hash", "_at", "_version", "_model"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// looksLikeHash accepts "sha256:" and 64 lowercase hex, or an id of 16 to 64
// lowercase hex with both letters and digits (OpenTelemetry span and trace
// ids) — a long number alone, such as a card number, is not one.
func looksLikeHash(s string) bool {
	if rest, ok := strings.CutPrefix(s, skill.HashPrefix); ok {
		return len(rest) == 64 && isLowerHex(rest)
	}
	if len(s) < 16 || len(s) > 64 || !isLowerHex(s) {
		return false
	}
	return strings.ContainsAny(s, "abcdef") && strings.ContainsAny(s, "0123456789")
}

func looksLikeUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

func looksLikeTime(s string) bool {
	if len(s) < 20 || s[4] != '-' {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

func asObj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asArr(v any) []any {
	a, _ := v.([]any)
	return a
}
