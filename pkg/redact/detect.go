package redact

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"

	"workbench/pkg/sortfunc"
)

// Secret kinds a Detector reports. Each names a credential format with a
// distinctive shape, so that a match is very unlikely to be ordinary text.
const (
	KindOpenRouterKey  = "openrouter_key"        // sk-or-v1- and 64 lowercase hex
	KindOpenAIKey      = "openai_key"            // sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…
	KindAnthropicKey   = "anthropic_key"         // sk-ant-api03-…
	KindAWSAccessKeyID = "aws_access_key_id"     // AKIA/ASIA and 16 upper-case letters or digits
	KindAWSSecretKey   = "aws_secret_access_key" // 40 base64 characters, only where labelled as one
	KindJWT            = "jwt"                   // three base64url segments, a JSON header with "alg"
	KindGitHubToken    = "github_token"          // ghp_ gho_ ghu_ ghs_ ghr_ github_pat_
	KindSlackToken     = "slack_token"           // xoxb- xoxp- xoxa- xoxr- xoxs-
	KindSlackWebhook   = "slack_webhook"         // https://hooks.slack.com/services/…
	KindPrivateKey     = "private_key"           // -----BEGIN … PRIVATE KEY----- … END
	KindGoogleAPIKey   = "google_api_key"        // AIza and 35 characters
)

// Kinds returns every kind a Detector reports, sorted.
func Kinds() []string {
	return []string{
		KindAnthropicKey, KindAWSAccessKeyID, KindAWSSecretKey, KindGitHubToken,
		KindGoogleAPIKey, KindJWT, KindOpenAIKey, KindOpenRouterKey, KindPrivateKey,
		KindSlackToken, KindSlackWebhook,
	}
}

// Match is one secret found inside a string: its kind and the byte range
// [Start, End) it occupies. A Match never carries the secret itself.
type Match struct {
	Kind       string
	Start, End int
}

// Detector finds strings that look like credentials. It is immutable once
// NewDetector returns and safe for concurrent use; keep one for repeated
// scans.
//
// Every kind but the AWS secret key starts with a literal prefix. A
// candidate is the prefix and the longest run of the kind's token bytes
// after it; it is reported when it is not glued to a preceding word and the
// whole token has the kind's exact shape, so that a prefix buried in a
// longer word, or followed by too few or too many characters, is not a
// secret. Each byte of a string is examined a bounded number of times, so a
// scan is linear in the string's length whatever it holds.
type Detector struct {
	matchers []matcher
	// gate lists, by first byte, the literals one of which a string must
	// contain for any matcher to find something in it: most strings
	// contain none and are passed over in one cheap pass.
	gate [256][]anchor
}

// anchor is a literal whose presence makes a secret possible.
type anchor struct {
	text string
	fold bool // matched ignoring ASCII case; text is lower case
}

// matcher finds one kind of secret: with find, on its own; otherwise as a
// prefix followed by a run of class bytes, not preceded by a byte of
// before nor followed by a byte of after, whose bytes after the prefix
// satisfy valid.
type matcher struct {
	kind     string
	prefixes []string
	class    string
	before   string
	after    string
	valid    func(body string) bool
	find     func(s string, dst []Match) []Match
}

// minSecretLen is the shortest string any matcher can report (a minimal
// JWT): shorter strings are skipped without looking.
const minSecretLen = 11

// NewDetector builds the matchers of every kind.
func NewDetector() *Detector {
	anthropicBody := regexp.MustCompile(`^[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{40,}$`)
	githubPATBody := regexp.MustCompile(`^[A-Za-z0-9]{20,}_[A-Za-z0-9]{30,}$`)
	d := &Detector{matchers: []matcher{
		{
			kind:     KindOpenRouterKey,
			prefixes: []string{"sk-or-v1-"},
			class:    alnum,
			before:   wordBytes,
			valid:    func(b string) bool { return len(b) == 64 && isLowerHex(b) },
		},
		{
			// Project, service-account and admin keys may hold - and _.
			// Random keys mix upper case, lower case and digits; requiring
			// all three keeps words and slugs out.
			kind:     KindOpenAIKey,
			prefixes: []string{"sk-proj-", "sk-svcacct-", "sk-admin-"},
			class:    base64URL,
			before:   wordBytes,
			valid:    func(b string) bool { return len(b) >= 40 && mixedClasses(b) },
		},
		{
			// Legacy keys: sk- and 32 or more letters and digits (48 in
			// practice). The other sk- kinds stop at their second hyphen.
			kind:     KindOpenAIKey,
			prefixes: []string{"sk-"},
			class:    alnum,
			before:   wordBytes,
			after:    "-_",
			valid:    func(b string) bool { return len(b) >= 32 && mixedClasses(b) },
		},
		{
			kind:     KindAnthropicKey,
			prefixes: []string{"sk-ant-"},
			class:    base64URL,
			before:   wordBytes,
			valid:    func(b string) bool { return anthropicBody.MatchString(b) && mixedClasses(b) },
		},
		{
			kind:     KindAWSAccessKeyID,
			prefixes: []string{"AKIA", "ASIA"},
			class:    alnum,
			before:   alnum,
			valid:    func(b string) bool { return len(b) == 16 && allIn(b, upperDigits) },
		},
		{
			kind: KindAWSSecretKey,
			find: findLabelledAWSSecrets,
		},
		{
			// A JWT's header is a JSON object, which base64url-encodes to
			// "eyJ". The header must decode to JSON naming an "alg"; only an
			// unsecured token (alg "none") may have an empty signature.
			kind:     KindJWT,
			prefixes: []string{"eyJ"},
			class:    base64URL + ".",
			before:   base64URL,
			valid:    func(b string) bool { return validJWT("eyJ" + b) },
		},
		{
			kind:     KindGitHubToken,
			prefixes: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
			class:    alnum,
			before:   wordBytes,
			after:    "_",
			valid:    func(b string) bool { return len(b) >= 36 && len(b) <= 251 },
		},
		{
			kind:     KindGitHubToken,
			prefixes: []string{"github_pat_"},
			class:    wordBytes,
			before:   wordBytes,
			valid:    githubPATBody.MatchString,
		},
		{
			// xoxb-<team digits>-<bot digits>-<secret> and the like.
			kind:     KindSlackToken,
			prefixes: []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"},
			class:    alnum + "-",
			before:   base64URL,
			valid:    validSlackToken,
		},
		{
			kind:     KindSlackWebhook,
			prefixes: []string{"https://hooks.slack.com/", "http://hooks.slack.com/"},
			class:    alnum + "_/+-",
			before:   alnum,
			valid:    validSlackWebhook,
		},
		{
			kind: KindPrivateKey,
			find: findPrivateKeys,
		},
		{
			kind:     KindGoogleAPIKey,
			prefixes: []string{"AIza"},
			class:    base64URL,
			before:   base64URL,
			valid:    func(b string) bool { return len(b) == 35 },
		},
	}}
	anchors := []anchor{{text: privateKeyBegin}, {text: "secret", fold: true}}
	for _, m := range d.matchers {
		for _, p := range m.prefixes {
			anchors = append(anchors, anchor{text: p})
		}
	}
	for _, a := range anchors {
		if a.fold {
			d.gate[a.text[0]] = append(d.gate[a.text[0]], a)
			d.gate[a.text[0]-'a'+'A'] = append(d.gate[a.text[0]-'a'+'A'], a)
		} else {
			d.gate[a.text[0]] = append(d.gate[a.text[0]], a)
		}
	}
	return d
}

// mayHold reports whether s contains one of the gate's literals.
func (d *Detector) mayHold(s string) bool {
	for i := 0; i < len(s); i++ {
		for _, a := range d.gate[s[i]] {
			if a.fold && hasPrefixFold(s[i:], a.text) || !a.fold && strings.HasPrefix(s[i:], a.text) {
				return true
			}
		}
	}
	return false
}

// Byte classes of tokens and their boundaries.
const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	alnum       = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	wordBytes   = alnum + "_"
	base64URL   = alnum + "-_"
	base64Std   = alnum + "+/="
)

// appendTo appends the matcher's secrets in s to dst.
func (m *matcher) appendTo(dst []Match, s string) []Match {
	if m.find != nil {
		return m.find(s, dst)
	}
	for _, prefix := range m.prefixes {
		off := 0
		for {
			i := strings.Index(s[off:], prefix)
			if i < 0 {
				break
			}
			start := off + i
			bodyStart := start + len(prefix)
			end := bodyStart + runOf(s[bodyStart:], m.class)
			// Resume after the token: a prefix inside it belongs to it, and
			// skipping it keeps the scan linear.
			off = end
			if start > 0 && strings.IndexByte(m.before, s[start-1]) >= 0 {
				continue
			}
			if end < len(s) && strings.IndexByte(m.after, s[end]) >= 0 {
				continue
			}
			if m.kind == KindJWT {
				// A sentence may end right after a token; an unsecured
				// token keeps the dot before its empty signature.
				dots := strings.Count(s[start:end], ".")
				for end > bodyStart && s[end-1] == '.' && dots > 2 {
					end--
					dots--
				}
			}
			if m.valid(s[bodyStart:end]) {
				dst = append(dst, Match{Kind: m.kind, Start: start, End: end})
			}
		}
	}
	return dst
}

// runOf is the length of the prefix of s made of bytes of class.
func runOf(s, class string) int {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(class, s[i]) < 0 {
			return i
		}
	}
	return len(s)
}

func allIn(s, class string) bool { return runOf(s, class) == len(s) }

func isLowerHex(s string) bool { return allIn(s, "0123456789abcdef") }

// mixedClasses reports whether s holds an upper-case letter, a lower-case
// letter and a digit, as random keys of this length practically always do.
func mixedClasses(s string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			n++
		}
	}
	return n
}

// validSlackToken checks the part after xox?-: a numeric id, a hyphen and
// more, long enough and with enough digits to be an issued token.
func validSlackToken(b string) bool {
	n := runOf(b, "0123456789")
	return n > 0 && n < len(b) && b[n] == '-' && len(b) >= 20 && digits(b) >= 8
}

// validSlackWebhook checks the path of a hooks.slack.com URL.
func validSlackWebhook(b string) bool {
	for _, kind := range []string{"services/", "workflows/", "triggers/"} {
		if rest, ok := strings.CutPrefix(b, kind); ok {
			return len(rest) >= 16
		}
	}
	return false
}

// findLabelledAWSSecrets finds AWS secret access keys, which have no prefix
// of their own: 40 base64 characters right after a label such as
// aws_secret_access_key = , AWS_SECRET_KEY: or "SecretAccessKey": ".
// The member-name form of the label is handled by matchValue.
func findLabelledAWSSecrets(s string, dst []Match) []Match {
	off := 0
	for {
		i := indexFold(s[off:], "secret")
		if i < 0 {
			return dst
		}
		i += off
		off = i + len("secret")
		j := skipSep(s, off)
		access := hasPrefixFold(s[j:], "access")
		if access {
			j = skipSep(s, j+len("access"))
		}
		if !hasPrefixFold(s[j:], "key") {
			continue
		}
		j += len("key")
		// "secret key" alone is too common a phrase; without "access" the
		// label must say aws.
		if !access && !awsBefore(s, i) {
			continue
		}
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			j++
		}
		j = skipSpace(s, j)
		switch {
		case strings.HasPrefix(s[j:], "=>"), strings.HasPrefix(s[j:], ":="):
			j += 2
		case j < len(s) && (s[j] == ':' || s[j] == '='):
			j++
		default:
			continue
		}
		j = skipSpace(s, j)
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			j++
		}
		end := j + runOf(s[j:min(len(s), j+41)], alnum+"+/")
		if end-j == 40 && (end == len(s) || s[end] != '=') && mixedClasses(s[j:end]) {
			dst = append(dst, Match{Kind: KindAWSSecretKey, Start: j, End: end})
			off = end
		}
	}
}

// skipSep skips one optional _ or - at i.
func skipSep(s string, i int) int {
	if i < len(s) && (s[i] == '_' || s[i] == '-') {
		return i + 1
	}
	return i
}

// skipSpace skips up to eight blanks at i.
func skipSpace(s string, i int) int {
	for n := 0; n < 8 && i < len(s) && (s[i] == ' ' || s[i] == '\t'); n++ {
		i++
	}
	return i
}

// awsBefore reports whether "aws", optionally followed by _ or -, ends at i.
func awsBefore(s string, i int) bool {
	if i > 0 && (s[i-1] == '_' || s[i-1] == '-') {
		i--
	}
	return i >= 3 && hasPrefixFold(s[i-3:], "aws")
}

// hasPrefixFold reports whether s starts with lower-case ASCII prefix,
// ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if s[i]|0x20 != prefix[i] {
			return false
		}
	}
	return true
}

// validJWT checks the header and payload of a JWT-shaped token.
func validJWT(tok string) bool {
	if strings.Count(tok, ".") != 2 {
		return false
	}
	header, rest, _ := strings.Cut(tok, ".")
	payload, sig, _ := strings.Cut(rest, ".")
	h, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return false
	}
	if _, err := base64.RawURLEncoding.DecodeString(payload); err != nil {
		return false
	}
	var fields map[string]any
	if json.Unmarshal(h, &fields) != nil {
		return false
	}
	alg, ok := fields["alg"].(string)
	if !ok || alg == "" {
		return false
	}
	return sig != "" || strings.EqualFold(alg, "none")
}

const privateKeyBegin = "-----BEGIN "

// findPrivateKeys finds PEM and OpenSSH/PGP armoured private keys. A block
// without its END line (a key cut short in a transcript) still leaks key
// material, so it is reported up to the end of the armoured body that
// follows the header.
func findPrivateKeys(s string, dst []Match) []Match {
	const begin = privateKeyBegin
	const dashes = "-----"
	off := 0
	for {
		i := strings.Index(s[off:], begin)
		if i < 0 {
			return dst
		}
		start := off + i
		labelStart := start + len(begin)
		// Labels are short; bounding the search keeps a run of unclosed
		// headers linear.
		window := s[labelStart:min(len(s), labelStart+80)]
		j := strings.Index(window, dashes)
		if j < 0 {
			off = labelStart
			continue
		}
		label := window[:j]
		bodyStart := labelStart + j + len(dashes)
		if !strings.Contains(label, "PRIVATE KEY") || strings.ContainsAny(label, "\r\n") {
			off = bodyStart
			continue
		}
		// Look for the footer only up to the next header, so that each
		// byte is searched once however many blocks the string holds.
		region := s[bodyStart:]
		if k := strings.Index(region, begin); k >= 0 {
			region = region[:k]
		}
		end := bodyStart
		footer := "-----END " + label + dashes
		if k := strings.Index(region, footer); k >= 0 {
			end += k + len(footer)
		} else {
			end += armouredRun(region)
		}
		dst = append(dst, Match{Kind: KindPrivateKey, Start: start, End: end})
		off = end
	}
}

// armouredRun is the length of the prefix of s made of base64 and line
// breaks (including the two-character "\n" of JSON text held in a string).
func armouredRun(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(base64Std, c) < 0 && c != '\r' && c != '\n' && c != '\t' && c != '\\' {
			return i
		}
	}
	return len(s)
}

// ScanString returns the secrets in s, ordered by position and not
// overlapping.
func (d *Detector) ScanString(s string) []Match {
	return d.appendMatches(nil, s)
}

// ContainsSecret reports whether s holds anything that looks like a secret.
func (d *Detector) ContainsSecret(s string) bool {
	return len(d.appendMatches(nil, s)) > 0
}

// appendMatches appends the secrets in s to dst, ordered by position. Where
// two kinds claim overlapping bytes, the earlier and then the longer match
// wins, so a masked string has exactly one mask per secret.
func (d *Detector) appendMatches(dst []Match, s string) []Match {
	if len(s) < minSecretLen || !d.mayHold(s) {
		return dst
	}
	n0 := len(dst)
	for i := range d.matchers {
		dst = d.matchers[i].appendTo(dst, s)
	}
	found := dst[n0:]
	if len(found) < 2 {
		return dst
	}
	sortfunc.Sort(found, func(a, b Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	keep := found[:1]
	for _, m := range found[1:] {
		if m.Start >= keep[len(keep)-1].End {
			keep = append(keep, m)
		}
	}
	return dst[:n0+len(keep)]
}

// indexFold finds lower-case ASCII sub in s ignoring ASCII case, without
// allocating a lower-cased copy of s.
func indexFold(s, sub string) int {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for j < n && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == n {
			return i
		}
	}
	return -1
}

// awsSecretLabel reports whether a member name labels its value as an AWS
// secret access key ("aws_secret_access_key", "SecretAccessKey", …).
func awsSecretLabel(name string) bool {
	if len(name) > 40 {
		return false
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i] | 0x20
		if 'a' <= c && c <= 'z' {
			b.WriteByte(c)
		}
	}
	switch b.String() {
	case "awssecretaccesskey", "awssecretkey", "secretaccesskey", "awssecret":
		return true
	}
	return false
}

// awsSecretShape reports whether s is exactly one AWS secret access key.
func awsSecretShape(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(alnum+"+/", s[i]) < 0 {
			return false
		}
	}
	return mixedClasses(s)
}

// matchValue appends the secrets of a string value held by the member
// named name (empty for array elements): those the string shows on its own,
// and a bare AWS secret key that only its member name labels.
func (d *Detector) matchValue(dst []Match, s, name string) []Match {
	n0 := len(dst)
	dst = d.appendMatches(dst, s)
	if len(dst) == n0 && name != "" && awsSecretShape(s) && awsSecretLabel(name) {
		dst = append(dst, Match{Kind: KindAWSSecretKey, Start: 0, End: len(s)})
	}
	return dst
}

// MaskString returns s with every secret replaced by its mask,
// [redacted:<kind>], repeating until nothing is left to find: masking one
// secret can leave a neighbour that only the boundary with it had hidden
// standing alone. No match ever spans a mask, so each round removes text
// and the loop ends.
func (d *Detector) MaskString(s string) string {
	f := finder{d: d}
	return f.mask(s, "", f.find(nil, s, ""))
}

// Mask returns s with every match replaced by its mask, [redacted:<kind>],
// in one round (see Detector.MaskString). ms must be ordered and not
// overlap, as ScanString returns them.
func Mask(s string, ms []Match) string {
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.Start])
		b.WriteString(MaskPrefix + m.Kind + MaskSuffix)
		last = m.End
	}
	b.WriteString(s[last:])
	return b.String()
}
