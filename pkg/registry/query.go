package registry

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"workbench/pkg/signature"
)

// Listing's bounds.
const (
	// DefaultPageSize is how many entries a listing page holds when the
	// query does not say.
	DefaultPageSize = 20
	// MaxPageSize is the most a query may ask for.
	MaxPageSize = 50
	// MaxQueryText bounds the search text, in characters.
	MaxQueryText = 100
)

// CodeQuery is the refusal code of a listing query it cannot read (400).
const CodeQuery = "query_invalid"

// Query is a listing of the index: newest first (by PublishedAt, then by
// ContentHash), the entries whose name, slug or description holds Text
// (ASCII letters compared without case) and whose signer is Signer, each
// when given, after the entry After names, at most Limit of them.
type Query struct {
	Text   string
	Signer string // a key id
	After  *Cursor
	Limit  int
}

// Cursor is where a listing page ended: its last entry's PublishedAt and
// ContentHash. Its text form is opaque to clients.
type Cursor struct {
	PublishedAt, ContentHash string
}

// String is the cursor as a query carries it.
func (c Cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.PublishedAt + " " + c.ContentHash))
}

// parseCursor reads a cursor String wrote.
func parseCursor(s string) (Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, fmt.Errorf("not a cursor this registry wrote")
	}
	at, hash, ok := strings.Cut(string(b), " ")
	if _, err := time.Parse(TimeFormat, at); !ok || err != nil || !ValidHash(hash) {
		return Cursor{}, fmt.Errorf("not a cursor this registry wrote")
	}
	return Cursor{PublishedAt: at, ContentHash: hash}, nil
}

// Page is one page of a listing: its entries and, when more follow, the
// cursor of the next page; nil on the last.
type Page struct {
	Skills     []Entry `json:"skills"`
	NextCursor *string `json:"next_cursor"`
}

// ParseQuery reads a listing's URL query: q, signer, cursor and limit, each
// at most once, nothing else. A refusal is a *Refusal (CodeQuery).
func ParseQuery(v url.Values) (Query, error) {
	bad := func(format string, args ...any) error {
		return &Refusal{Status: http.StatusBadRequest, Code: CodeQuery, Message: fmt.Sprintf(format, args...)}
	}
	q := Query{Limit: DefaultPageSize}
	for k, vs := range v {
		if len(vs) != 1 {
			return Query{}, bad("%s is given %d times; once at most", clip(k), len(vs))
		}
		val := vs[0]
		switch k {
		case "q":
			if !utf8.ValidString(val) || utf8.RuneCountInString(val) > MaxQueryText {
				return Query{}, bad("q must be text of at most %d characters", MaxQueryText)
			}
			q.Text = strings.TrimSpace(val)
		case "signer":
			if val == "" {
				continue
			}
			if !strings.HasPrefix(val, signature.KeyIDPrefix) || !ValidHash(val) {
				return Query{}, bad("signer %q is not a key id (sha256: and 64 lowercase hex digits)", clip(val))
			}
			q.Signer = val
		case "cursor":
			if val == "" {
				continue
			}
			c, err := parseCursor(val)
			if err != nil {
				return Query{}, bad("cursor: %v", err)
			}
			q.After = &c
		case "limit":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > MaxPageSize {
				return Query{}, bad("limit must be a number from 1 to %d", MaxPageSize)
			}
			q.Limit = n
		default:
			return Query{}, bad("unknown parameter %q: a listing takes q, signer, cursor and limit", clip(k))
		}
	}
	return q, nil
}
