package proxy

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Operator-held headers: a credential the deployment holds for one MCP
// server (a Worker secret, an environment variable of `workbench serve`)
// and the relay adds to every request to that server. The page never sees
// it: no response carries a request header, and no error, log line or
// listing quotes its value.

// MCPHeaderVarPrefix begins the name of the variable that holds a server's
// header: MCPHeaderVar.
const MCPHeaderVarPrefix = "MCP_HEADER_"

// MCPHeader is one header the relay adds to every request to Server.
type MCPHeader struct {
	Server string // a configured server's name
	Name   string // a header name, e.g. "Authorization" or "X-Api-Key"
	Value  string // sent byte for byte
}

// MCPHeaderVar returns the name of the variable holding server's header:
// MCPHeaderVarPrefix and the name in upper case with "-" as "_"
// ("github-tools" → MCP_HEADER_GITHUB_TOOLS). Names are a–z 0–9 "-", so no
// two servers share a variable. The Worker reads it as a secret;
// `workbench serve` reads "WORKBENCH_" + it from its environment.
func MCPHeaderVar(server string) string {
	return MCPHeaderVarPrefix + strings.ToUpper(strings.ReplaceAll(server, "-", "_"))
}

// ParseMCPHeader parses a header field written "Name: value" for server.
// Its errors say what is wrong and never quote the value, which is a
// credential.
func ParseMCPHeader(server, field string) (MCPHeader, error) {
	name, value, ok := strings.Cut(field, ":")
	if !ok {
		return MCPHeader{}, fmt.Errorf("the header for MCP server %s: want \"Name: value\" (no colon found)", clip(server))
	}
	return MCPHeader{Server: server, Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}, nil
}

// relayManagedHeaders are set by the relay or by HTTP itself; an operator
// header may not replace one.
var relayManagedHeaders = [...]string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive",
	"Te", "Trailer", "Upgrade", "Proxy-Authorization", "Proxy-Connection"}

// checkMCPHeader checks one header for the relay: a token name that is
// neither one of the MCP request headers nor one HTTP manages, and a
// non-empty value of printable ASCII within MaxHeaderValueBytes. The
// errors never quote the value.
func checkMCPHeader(h MCPHeader) error {
	if h.Name == "" {
		return errors.New("empty header name")
	}
	for i := 0; i < len(h.Name); i++ {
		if !tokenByte(h.Name[i]) {
			return fmt.Errorf("header name %s has byte %q at offset %d; want an HTTP token", clip(h.Name), h.Name[i], i)
		}
	}
	k := http.CanonicalHeaderKey(h.Name)
	for _, m := range mcpRequestHeaders {
		if k == m {
			return fmt.Errorf("header %s is one the relay forwards from the page; it cannot be fixed", k)
		}
	}
	for _, m := range relayManagedHeaders {
		if k == m {
			return fmt.Errorf("header %s is managed by HTTP and cannot be set", k)
		}
	}
	if h.Value == "" {
		return fmt.Errorf("header %s has an empty value", k)
	}
	if len(h.Value) > MaxHeaderValueBytes {
		return fmt.Errorf("header %s: value of %d bytes exceeds %d", k, len(h.Value), MaxHeaderValueBytes)
	}
	for i := 0; i < len(h.Value); i++ {
		if c := h.Value[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("header %s: value has a byte outside printable ASCII at offset %d", k, i)
		}
	}
	return nil
}

// tokenByte reports whether c may appear in an HTTP token (RFC 9110 §5.6.2).
func tokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// addMCPHeaders checks headers and attaches each to its server in
// servers. A server has at most one, and one whose Authorization the page
// may send (AuthorizationFor) cannot also have an operator's
// Authorization: which of the two reached the server would be unclear.
func addMCPHeaders(servers map[string]mcpUpstream, headers []MCPHeader) error {
	for _, h := range headers {
		up, ok := servers[h.Server]
		if !ok {
			return fmt.Errorf("proxy: a header is configured for MCP server %s, which is not configured", clip(h.Server))
		}
		if up.header.Name != "" {
			return fmt.Errorf("proxy: MCP server %q has two headers configured; one is allowed", h.Server)
		}
		if err := checkMCPHeader(h); err != nil {
			return fmt.Errorf("proxy: the header for MCP server %q: %w", h.Server, err)
		}
		h.Name = http.CanonicalHeaderKey(h.Name)
		if up.auth && h.Name == "Authorization" {
			return fmt.Errorf("proxy: MCP server %q receives the page's Authorization and has an Authorization header configured; choose one", h.Server)
		}
		up.header = h
		servers[h.Server] = up
	}
	return nil
}

// setMCPHeader adds up's operator header, if it has one, to hdr, the
// request headers for up, replacing whatever the page sent under that
// name.
func (up mcpUpstream) setMCPHeader(hdr http.Header) {
	if up.header.Name != "" {
		hdr[up.header.Name] = []string{up.header.Value}
	}
}
