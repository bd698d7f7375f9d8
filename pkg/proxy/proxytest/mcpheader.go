package proxytest

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// MCPToken is the bearer token StartTokenMCPServer's server requires: the
// credential an operator holds for a hosted MCP server.
const MCPToken = "OPERATOR-TOKEN-7f3a91c0d2e84b6a"

// MCPOperatorHeader is the operator header, as a host reads it from a
// Worker secret or the environment ("Name: value"), that opens
// StartTokenMCPServer's server.
const MCPOperatorHeader = "Authorization: Bearer " + MCPToken

// StartTokenMCPServer starts an MCPServer like StartMCPServer (SSE
// responses) behind the go-sdk's bearer-token check: every request
// without "Authorization: Bearer " + MCPToken gets 401, as from a hosted
// MCP server that needs a credential. Close stops it.
func StartTokenMCPServer() *MCPServer {
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(token), []byte(MCPToken)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	return startMCPServer(false, auth.RequireBearerToken(verify, nil)(mcpHandler(false)))
}

// RunMCPOperatorHeader checks the relay's operator-held header against
// srv, a StartTokenMCPServer configured twice on the host: under locked
// with no header, and under keyed with MCPOperatorHeader. Without the
// header the server refuses (its 401 passed back), even when the page
// sends the right token itself, since the page's Authorization reaches
// only servers configured for it; with it, a whole MCP session is served
// whatever the page sends, and nothing the page gets back holds the token.
func RunMCPOperatorHeader(t *testing.T, tg MCPTarget, locked, keyed string, srv *MCPServer) {
	t.Helper()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"relay-test","version":"0"}}}`
	post := func(name string, extra map[string]string) *Response {
		t.Helper()
		hdr := map[string]string{"Origin": tg.Origin, "Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
		for k, v := range extra {
			hdr[k] = v
		}
		resp := tg.do(t, "POST", mcpMount+name, hdr, initialize)
		if err := holdsToken(resp); err != nil {
			t.Errorf("POST %s: %v", name, err)
		}
		return resp
	}
	t.Run("refused without the header", func(t *testing.T) {
		if resp := post(locked, nil); resp.Status != http.StatusUnauthorized {
			t.Errorf("→ %d %.200s; want the server's 401", resp.Status, resp.Body)
		}
	})
	t.Run("the page's token is not forwarded", func(t *testing.T) {
		if resp := post(locked, map[string]string{"Authorization": "Bearer " + MCPToken}); resp.Status != http.StatusUnauthorized {
			t.Errorf("→ %d %.200s; want the server's 401: the page's Authorization reached it", resp.Status, resp.Body)
		}
	})
	t.Run("the header replaces the page's", func(t *testing.T) {
		if resp := post(keyed, map[string]string{"Authorization": "Bearer page-token"}); resp.Status != http.StatusOK {
			t.Errorf("→ %d %.200s; want 200", resp.Status, resp.Body)
		}
	})
	t.Run("served with the header", func(t *testing.T) { RunMCPSession(t, tg, keyed, srv) })
}

// holdsToken reports an error when resp carries MCPToken anywhere.
func holdsToken(resp *Response) error {
	var b strings.Builder
	resp.Header.Write(&b)
	b.Write(resp.Body)
	if strings.Contains(b.String(), MCPToken) {
		return errors.New("the response holds the operator's token")
	}
	return nil
}
