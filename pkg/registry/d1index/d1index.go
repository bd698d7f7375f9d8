// Package d1index is the registry's index (server.Index) in a Cloudflare
// D1 database, reached through database/sql and syumai/workers' D1
// driver. Its tables are made by the repository's migrations
// (migrations/*.sql), applied with `wrangler d1 migrations apply`; an
// index whose tables are missing answers server.ErrNotReady.
//
// Every write is one SQL statement, which D1 runs atomically: an insert
// that would replace a row is ignored, and a withdrawal changes only a
// row not withdrawn yet.
package d1index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"workbench/pkg/registry"
	"workbench/pkg/registry/server"
)

// Index is the registry's index in a database with migrations/*.sql
// applied.
type Index struct {
	db *sql.DB
}

// New returns the index in db.
func New(db *sql.DB) *Index { return &Index{db: db} }

const columns = `content_hash, skill_id, slug, version, name, description, signer_key_id, signer_public_key,
	verdict, redaction_profile, size, published_at, withdrawn_at`

// Entry returns the entry of hash.
func (x *Index) Entry(ctx context.Context, hash string) (registry.Entry, bool, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT `+columns+` FROM bundles WHERE content_hash = ?`, hash)
	if err != nil {
		return registry.Entry{}, false, wrap("read an entry", err)
	}
	es, err := scan(rows)
	if err != nil || len(es) == 0 {
		return registry.Entry{}, false, err
	}
	return es[0], true, nil
}

// Insert adds e unless its content hash has an entry.
func (x *Index) Insert(ctx context.Context, e registry.Entry) (bool, error) {
	res, err := x.db.ExecContext(ctx, `INSERT INTO bundles (`+columns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
		ON CONFLICT (content_hash) DO NOTHING`,
		e.ContentHash, e.SkillID, e.Slug, e.Version, e.Name, e.Description, e.SignerKeyID, e.SignerPublicKey,
		e.Verdict, e.RedactionProfile, e.Size, e.PublishedAt)
	if err != nil {
		return false, wrap("insert an entry", err)
	}
	return changed(res)
}

// Withdraw marks the entry of hash withdrawn unless it is already.
func (x *Index) Withdraw(ctx context.Context, hash, at string, withdrawal []byte) (bool, error) {
	res, err := x.db.ExecContext(ctx, `UPDATE bundles SET withdrawn_at = ?, withdrawal = ?
		WHERE content_hash = ? AND withdrawn_at IS NULL`, at, string(withdrawal), hash)
	if err != nil {
		return false, wrap("withdraw an entry", err)
	}
	return changed(res)
}

// List returns q's listing. The search text matches anywhere in the name,
// slug or description, ASCII letters without regard to case.
func (x *Index) List(ctx context.Context, q registry.Query) ([]registry.Entry, error) {
	var where []string
	var args []any
	if q.Text != "" {
		// instr, not LIKE: D1 bounds a LIKE pattern to 50 bytes, and the
		// text is matched as itself, wildcards and all. lower() folds
		// ASCII letters only, as the query's text is folded here.
		text := asciiLower(q.Text)
		where = append(where, `(instr(lower(name), ?) > 0 OR instr(lower(slug), ?) > 0 OR instr(lower(description), ?) > 0)`)
		args = append(args, text, text, text)
	}
	if q.Signer != "" {
		where = append(where, `signer_key_id = ?`)
		args = append(args, q.Signer)
	}
	if q.After != nil {
		where = append(where, `(published_at < ? OR (published_at = ? AND content_hash < ?))`)
		args = append(args, q.After.PublishedAt, q.After.PublishedAt, q.After.ContentHash)
	}
	query := `SELECT ` + columns + ` FROM bundles`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY published_at DESC, content_hash DESC LIMIT ?`
	args = append(args, q.Limit)
	rows, err := x.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap("list entries", err)
	}
	return scan(rows)
}

// asciiLower folds ASCII letters to lower case and leaves every other
// character as it is, as SQLite's lower() does.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func scan(rows *sql.Rows) ([]registry.Entry, error) {
	defer rows.Close()
	var es []registry.Entry
	for rows.Next() {
		var e registry.Entry
		var withdrawn sql.NullString
		if err := rows.Scan(&e.ContentHash, &e.SkillID, &e.Slug, &e.Version, &e.Name, &e.Description,
			&e.SignerKeyID, &e.SignerPublicKey, &e.Verdict, &e.RedactionProfile, &e.Size, &e.PublishedAt, &withdrawn); err != nil {
			return nil, wrap("read a row", err)
		}
		if withdrawn.Valid {
			e.WithdrawnAt = &withdrawn.String
		}
		es = append(es, e)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("read rows", err)
	}
	return es, nil
}

func changed(res sql.Result) (bool, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap("count changed rows", err)
	}
	return n == 1, nil
}

// wrap names what failed; a missing table is server.ErrNotReady.
func wrap(what string, err error) error {
	if strings.Contains(err.Error(), "no such table") {
		return fmt.Errorf("d1index: %s: %w (%v)", what, server.ErrNotReady, err)
	}
	return fmt.Errorf("d1index: %s: %w", what, err)
}
