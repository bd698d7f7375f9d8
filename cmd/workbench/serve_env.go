package main

import (
	"fmt"

	"workbench/pkg/proxy"
)

// mcpHeaderEnvPrefix begins the environment variables `workbench serve`
// reads operator headers from: WORKBENCH_ + proxy.MCPHeaderVar(name),
// e.g. WORKBENCH_MCP_HEADER_GITHUB="Authorization: Bearer …" for the
// server --mcp github=…. Never a flag: a flag's value shows in the process
// list and the shell's history.
const mcpHeaderEnvPrefix = "WORKBENCH_"

// mcpHeadersFromEnv returns the operator header getenv holds for each of
// servers, skipping servers with none.
func mcpHeadersFromEnv(servers []proxy.MCPServer, getenv func(string) string) ([]proxy.MCPHeader, error) {
	var out []proxy.MCPHeader
	for _, s := range servers {
		name := mcpHeaderEnvPrefix + proxy.MCPHeaderVar(s.Name)
		v := getenv(name)
		if v == "" {
			continue
		}
		h, err := proxy.ParseMCPHeader(s.Name, v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, h)
	}
	return out, nil
}
