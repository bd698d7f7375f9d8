package redact

import "strings"

// Personal kinds: patterns that transcript_pii and full mask wherever they
// are, like secrets, but that the export dialog's secret warning does not
// count (an e-mail address is personal, not a credential).
const (
	KindEmail    = "email"    // local@domain.tld
	KindPassword = "password" // the value after password, passwd or pwd
)

// PIIKinds returns the personal kinds, sorted.
func PIIKinds() []string { return []string{KindEmail, KindPassword} }

// maxPasswordLen bounds a password value, so that a label followed by a
// long run of text costs a bounded scan.
const maxPasswordLen = 256

// ScanPII returns the e-mail addresses and password values in s, ordered by
// position and not overlapping.
func (d *Detector) ScanPII(s string) []Match {
	return appendPII(nil, s, "")
}

// Clean returns s with every secret and every e-mail address and password
// value masked ([redacted:<kind>]), repeating until none is left: the text
// a command prints about a run, or a name is made from.
func (d *Detector) Clean(s string) string {
	f := finder{d: d, pii: true}
	return f.mask(s, "", f.find(nil, s, ""))
}

// appendPII appends the personal matches of s, held by the member named
// name, to dst, ordered by position. A member named like a password
// (password, db_password, userPasswd, pwd) holds one as a whole.
func appendPII(dst []Match, s, name string) []Match {
	if s == "" || IsMarker(s) {
		return dst
	}
	if passwordLabel(name) {
		return append(dst, Match{Kind: KindPassword, Start: 0, End: len(s)})
	}
	n0 := len(dst)
	dst = appendEmails(dst, s)
	dst = appendPasswords(dst, s)
	return sortMerge(dst, n0)
}

// passwordLabel reports whether a member name says its value is a
// password: its letters, lower-cased, are or end in password or passwd, or
// are pwd.
func passwordLabel(name string) bool {
	if name == "" || len(name) > 64 || indexFold(name, "pass") < 0 && indexFold(name, "pwd") < 0 {
		return false
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if c := name[i] | 0x20; 'a' <= c && c <= 'z' {
			b.WriteByte(c)
		}
	}
	l := b.String()
	return l == "pwd" || strings.HasSuffix(l, "password") || strings.HasSuffix(l, "passwd")
}

const (
	emailLocal  = alnum + "._%+-"
	emailDomain = alnum + ".-"
)

// appendEmails finds local@domain.tld: a local part of letters, digits and
// ._%+-, a domain of at least two labels and a top-level label of two or
// more letters. Each byte is looked at from at most two @ signs, so the
// scan is linear.
func appendEmails(dst []Match, s string) []Match {
	off := 0
	for {
		i := strings.IndexByte(s[off:], '@')
		if i < 0 {
			return dst
		}
		at := off + i
		off = at + 1
		start := at
		for start > 0 && strings.IndexByte(emailLocal, s[start-1]) >= 0 {
			start--
		}
		for start < at && s[start] == '.' {
			start++
		}
		end := at + 1 + runOf(s[at+1:], emailDomain)
		for end > at+1 && (s[end-1] == '.' || s[end-1] == '-') {
			end--
		}
		domain := s[at+1 : end]
		dot := strings.LastIndexByte(domain, '.')
		if start == at || dot <= 0 || len(domain)-dot-1 < 2 || !allIn(domain[dot+1:], alnum[:52]) {
			continue
		}
		dst = append(dst, Match{Kind: KindEmail, Start: start, End: end})
		off = end
	}
}

// appendPasswords finds the value after a password label in text:
// password, passwd or pwd (any case, standing as a word or ending a
// snake_case or camelCase name), an optional closing quote, then ':', '=',
// ':=', '=>' or the word is or was, then the value — quoted, or up to the
// next blank, without trailing punctuation. With only blanks between label
// and value, the label must be password (pwd and passwd are also shell
// commands: "pwd && ls" is not a password) and the value must mix letters
// or digits with something else, so that "password reset" keeps its words.
func appendPasswords(dst []Match, s string) []Match {
	if !mayHoldPassword(s) {
		return dst
	}
	for _, label := range []string{"password", "passwd", "pwd"} {
		off := 0
		for {
			i := indexFold(s[off:], label)
			if i < 0 {
				break
			}
			at := off + i
			off = at + len(label)
			if !labelStart(s, at) || off < len(s) && isWordByte(s[off]) {
				continue
			}
			if m, ok := passwordValue(s, off, label == "password"); ok {
				dst = append(dst, m)
				off = m.End
			}
		}
	}
	return dst
}

// mayHoldPassword reports whether s holds "pa" or "pw" in any case, which
// every password label starts with: most strings hold neither and are
// passed over in one pass.
func mayHoldPassword(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i]|0x20 == 'p' && (s[i+1]|0x20 == 'a' || s[i+1]|0x20 == 'w') {
			return true
		}
	}
	return false
}

// labelStart reports whether a label found at i starts a word: at the
// start, after a byte that is not a letter or digit, or as the upper-case
// start of a camelCase part.
func labelStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	p := s[i-1]
	if 'a' <= p && p <= 'z' {
		return 'A' <= s[i] && s[i] <= 'Z'
	}
	return !isAlnum(p)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// passwordValue reads the separator and value that follow a label ending
// at j; bare allows blanks alone as the separator.
func passwordValue(s string, j int, bare bool) (Match, bool) {
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	k := skipSpace(s, j)
	sep := true
	switch {
	case strings.HasPrefix(s[k:], ":="), strings.HasPrefix(s[k:], "=>"):
		k += 2
	case k < len(s) && (s[k] == ':' || s[k] == '='):
		k++
	case k > j && (hasWordFold(s[k:], "is") || hasWordFold(s[k:], "was")):
		k += runOf(s[k:], alnum)
	case k > j && bare:
		sep = false
	default:
		return Match{}, false
	}
	k = skipSpace(s, k)
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		q := s[k]
		k++
		end := k
		for end < len(s) && end-k < maxPasswordLen && s[end] != q && s[end] != '\n' {
			end++
		}
		if end == k || end == len(s) || s[end] != q || HasMask(s[k:end]) {
			return Match{}, false
		}
		return Match{Kind: KindPassword, Start: k, End: end}, true
	}
	end := k
	for end < len(s) && end-k < maxPasswordLen && !isBlank(s[end]) {
		end++
	}
	for end > k && strings.IndexByte(".,;:!?)]}\"'", s[end-1]) >= 0 {
		end--
	}
	v := s[k:end]
	if v == "" || strings.HasPrefix(v, MaskPrefix) || v == Redacted {
		return Match{}, false
	}
	if !sep && (allIn(v, alnum[:52]) || !strings.ContainsAny(v, alnum)) {
		return Match{}, false
	}
	return Match{Kind: KindPassword, Start: k, End: end}, true
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// hasWordFold reports whether s starts with the lower-case word w,
// ignoring case, followed by a blank.
func hasWordFold(s, w string) bool {
	return hasPrefixFold(s, w) && len(s) > len(w) && isBlank(s[len(w)])
}
