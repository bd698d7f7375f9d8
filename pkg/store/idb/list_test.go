//go:build js && wasm

package idb

import (
	"encoding/json"
	"strings"
	"testing"

	"workbench/pkg/store"
)

// TestEncodedFilterKeepsEveryMatch checks the text test ListSkills runs
// before decoding a record: every record whose name, slug or description
// matches a filter contains the filter's encoding in its lower-cased JSON
// text, also when they hold characters encoding/json escapes.
func TestEncodedFilterKeepsEveryMatch(t *testing.T) {
	texts := []string{
		`Say "hi" <b>&amp;</b>`, "Tab\there\nand a new line", `back\slash`, "ÄÖÜ Straße",
		"İstanbul ǅ", "line\u2028separator", "emoji 🚀 end", "control \x01 char",
	}
	for _, text := range texts {
		for _, sk := range []store.Skill{{Name: text}, {Slug: text}, {Description: text}} {
			data, err := json.Marshal(sk)
			if err != nil {
				t.Fatal(err)
			}
			record := strings.ToLower(string(data))
			runes := []rune(text)
			for i := range runes {
				for j := i + 1; j <= len(runes) && j <= i+4; j++ {
					for _, filter := range []string{string(runes[i:j]), strings.ToUpper(string(runes[i:j]))} {
						q := store.SkillQuery{Filter: filter}
						if q.Matches(sk) && !strings.Contains(record, encodedFilter(filter)) {
							t.Errorf("filter %q matches %q, but %q is not in %s", filter, text, encodedFilter(filter), record)
						}
					}
				}
			}
		}
	}
}
