package services_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"workbench/pkg/mcp"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
)

// CheckArgs against schemas a server declares, through a real tools/list.
func TestCheckArgs(t *testing.T) {
	none := func(map[string]any) servicestest.Reply { return servicestest.Reply{} }
	srv := servicestest.Start(t,
		servicestest.Tool{Name: "typed", Schema: `{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"o":{"type":"object"},"a":{"type":"array"},"either":{"type":["string","null"]},"any":{}},"required":["s"]}`, Handler: none},
		servicestest.Tool{Name: "open", Schema: `{"type":"object"}`, Handler: none},
	)
	conn, err := services.Connect(context.Background(), services.Config{Endpoints: map[string]string{"prism": srv.URL}}, services.RoleJudge, &mcp.Options{HTTPClient: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	cases := []struct {
		tool string
		args map[string]any
		want []string // problems, in order; none means accepted
	}{
		{"typed", map[string]any{"s": "x", "n": 1.5, "i": 3, "b": true, "o": map[string]any{}, "a": []any{}, "either": nil, "any": 7}, nil},
		{"typed", map[string]any{"s": "x", "n": 2, "o": json.RawMessage(`{"k":1}`)}, nil},
		{"typed", map[string]any{"s": 1, "i": 1.5, "b": "yes", "o": "{}", "a": map[string]any{}}, []string{
			`argument "a" is a object but inputSchema/properties/a/type is array`,
			`argument "b" is a string but inputSchema/properties/b/type is boolean`,
			`argument "i" is a number but inputSchema/properties/i/type is integer`,
			`argument "o" is a string but inputSchema/properties/o/type is object`,
			`argument "s" is a integer but inputSchema/properties/s/type is string`}},
		{"typed", map[string]any{"extra": 1}, []string{
			`argument "extra" is not a property of its inputSchema (declared: a, any, b, either, i, n, o, s)`,
			`inputSchema/required lists "s", which the workbench does not send`}},
		{"open", map[string]any{"x": 1}, []string{`argument "x" is not a property of its inputSchema (declared: none)`}},
		{"missing", map[string]any{}, []string{`the server offers no tool named "missing"`}},
	}
	for _, c := range cases {
		err := conn.CheckArgs(c.tool, c.args)
		if len(c.want) == 0 {
			if err != nil {
				t.Errorf("%s %v: %v", c.tool, c.args, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s %v: accepted", c.tool, c.args)
			continue
		}
		if got := err.Error(); !strings.Contains(got, strings.Join(c.want, "; ")) {
			t.Errorf("%s %v:\n got %s\nwant %s", c.tool, c.args, got, strings.Join(c.want, "; "))
		}
	}
	if !conn.Declares("typed", "s") || conn.Declares("typed", "z") || strings.Join(conn.PropertyType("typed", "either"), "|") != "string|null" {
		t.Error("Declares / PropertyType")
	}
}
