package capability

import (
	"encoding/json"
	"strings"
	"testing"

	"workbench/pkg/redact"
)

func TestRegistryRenderAndFallback(t *testing.T) {
	reg := NewRegistry(nil)
	tests := []struct {
		name, hint, raw string
		renderer        string
		fallback        string // substring; "" means none
		status          string
	}{
		{"table of rows", HintTable, `[{"a":1,"b":"x"},{"a":2,"c":true}]`, HintTable, "", ""},
		{"table in rows member", HintTable, `{"rows":[{"model":"m"}]}`, HintTable, "", ""},
		{"table of scalars", HintTable, `[1,2]`, HintJSON, "row 0 is not an object", ""},
		{"rows as arrays under columns", HintTable, `{"columns":["time","level"],"rows":[["09:00","warn"],["09:01","error"]]}`, HintTable, "", ""},
		{"columns as objects", HintTable, `{"columns":[{"name":"time"},{"key":"level"}],"rows":[["09:00","warn"]]}`, HintTable, "", ""},
		{"arrays without columns", HintTable, `{"rows":[["a","b"]]}`, HintJSON, "no columns list", ""},
		{"a short row", HintTable, `{"columns":["a","b"],"rows":[["x","y"],["z"]]}`, HintJSON, "row 1 has 1 cells for 2 columns", ""},
		{"mixed rows", HintTable, `{"columns":["a"],"rows":[["x"],{"a":"y"}]}`, HintJSON, "row 1 is not an array", ""},
		{"empty table", HintTable, `[]`, HintJSON, "no rows", ""},
		{"evidence", HintEvidence, `{"verdict":"pass","re_verified":{"proof_gates":[{"id":"gate.authority","verdict":"pass"}]}}`, HintEvidence, "", ""},
		{"evidence without verdict", HintEvidence, `{"gates":[]}`, HintJSON, "no verdict", ""},
		{"graph", HintGraph, `{"nodes":[{"id":"a"},"b"],"edges":[{"from":"a","to":"b"}]}`, HintGraph, "", ""},
		{"graph dangling edge", HintGraph, `{"nodes":["a"],"edges":[{"source":"a","target":"z"}]}`, HintJSON, "not both nodes", ""},
		{"unknown hint", "timeline-3d", `{"x":1}`, HintJSON, "no renderer", ""},
		{"json", HintJSON, `{"x":1}`, HintJSON, "", ""},
		{"not json", HintTable, `plain text`, HintJSON, "not JSON", ""},
		{"envelope unwrapped", HintTable, `{"status":"ok","result":[{"a":1}],"render_hint":"table"}`, HintTable, "", "ok"},
		{"error envelope", HintTable, `{"status":"error","result":{"text":"boom"}}`, HintJSON, "not a table payload", "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := reg.Render(tt.hint, json.RawMessage(tt.raw))
			if v.Renderer != tt.renderer || v.Status != tt.status {
				t.Errorf("renderer %s status %q, want %s %q (fallback %q)", v.Renderer, v.Status, tt.renderer, tt.status, v.Fallback)
			}
			if (tt.fallback == "") != (v.Fallback == "") || !strings.Contains(v.Fallback, tt.fallback) {
				t.Errorf("fallback %q, want %q", v.Fallback, tt.fallback)
			}
			if v.JSON == "" || len(v.Original) == 0 {
				t.Error("the JSON view or the original is missing")
			}
			if v.Renderer == HintTable && (v.Table == nil || len(v.Table.Rows) == 0) ||
				v.Renderer == HintEvidence && v.Evidence == nil || v.Renderer == HintGraph && v.Graph == nil {
				t.Error("the renderer accepted but built nothing")
			}
		})
	}
	v := reg.Render(HintTable, json.RawMessage(`[{"a":1,"b":"x"},{"a":2,"c":true}]`))
	if strings.Join(v.Table.Columns, ",") != "a,b,c" || strings.Join(v.Table.Rows[1], ",") != "2,,true" {
		t.Errorf("table %+v", v.Table)
	}
	v = reg.Render(HintTable, json.RawMessage(`{"status":"ok","result":{"columns":["time","level","n"],"rows":[["09:00","warn",3],["09:01","error",null]]}}`))
	if strings.Join(v.Table.Columns, ",") != "time,level,n" || strings.Join(v.Table.Rows[0], ",") != "09:00,warn,3" || strings.Join(v.Table.Rows[1], ",") != "09:01,error,null" {
		t.Errorf("rows as arrays: %+v", v.Table)
	}
	// A columns list orders object rows; members it does not name follow.
	v = reg.Render(HintTable, json.RawMessage(`{"columns":["z","a"],"rows":[{"a":1,"z":2,"m":3}]}`))
	if strings.Join(v.Table.Columns, ",") != "z,a,m" || strings.Join(v.Table.Rows[0], ",") != "2,1,3" {
		t.Errorf("object rows under columns: %+v", v.Table)
	}
}

func TestSecretsAreMaskedBeforeDisplay(t *testing.T) {
	key := "sk-or-v1-" + strings.Repeat("ab", 32)
	raw := json.RawMessage(`{"status":"ok","result":{"note":"key ` + key + `","` + key + `":1}}`)
	v := NewRegistry(nil).Render(HintJSON, raw)
	if v.Redacted != 2 {
		t.Errorf("masked %d strings", v.Redacted)
	}
	for _, s := range []string{string(v.Original), v.JSON} {
		if strings.Contains(s, key) || !strings.Contains(s, "[redacted:openrouter_key]") {
			t.Errorf("not masked: %s", s)
		}
	}
	out, n := MaskSecrets(redact.NewDetector(), json.RawMessage(`{"a":"nothing here"}`))
	if n != 0 || string(out) != `{"a":"nothing here"}` {
		t.Errorf("changed a clean value: %s", out)
	}
}
