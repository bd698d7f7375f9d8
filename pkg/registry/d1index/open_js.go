//go:build js && wasm

package d1index

import (
	"database/sql"
	"fmt"

	"github.com/syumai/workers/cloudflare/d1"
)

// Open returns the index in the D1 database bound to the Worker as
// binding; an error when there is no such binding.
func Open(binding string) (*Index, error) {
	c, err := d1.OpenConnector(binding)
	if err != nil {
		return nil, fmt.Errorf("d1index: the D1 binding %s: %w", binding, err)
	}
	return New(sql.OpenDB(c)), nil
}
