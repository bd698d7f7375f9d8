package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// With MCP servers configured on the relay, / lists them and shows what
// a real handshake through the relay answered: the server's own name for
// a live one, the error for one that is down. Browser and host can then
// be picked, and the pick is kept in sessionStorage.
func TestBodyChoiceWithMCPServers(t *testing.T) {
	t.Parallel()
	srv := sdk.NewServer(&sdk.Implementation{Name: "e2e-mcp-server", Version: "4.5.6"}, nil)
	live := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(live.Close)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // nothing listens there any more

	s := newSession(t, withServeFlags("--mcp", "live="+live.URL, "--mcp", "gone="+deadURL))
	s.expectConsole("502") // the relay's answer for the server that is gone
	s.expectConsole("Bad Gateway")
	s.open("/")
	note := s.waitText("#body-browser-note", "e2e-mcp-server 4.5.6")
	if !strings.Contains(note, "live") || !strings.Contains(note, "reachable: answered the MCP handshake as e2e-mcp-server 4.5.6") {
		t.Errorf("browser note %q", note)
	}
	note = s.waitText("#body-browser-note", "unreachable")
	if !strings.Contains(note, "gone") {
		t.Errorf("browser note %q does not show the server that is gone", note)
	}
	if eval[bool](s, `document.querySelector("#body-browser").disabled`) {
		t.Fatal("browser cannot be picked although a server is configured")
	}
	s.click("#body-browser")
	if got := eval[string](s, `sessionStorage.getItem("workbench.body")`); got != "browser" {
		t.Errorf("sessionStorage workbench.body = %q, want browser", got)
	}
	s.open("/skills")
	s.open("/")
	s.waitText("#body-browser-note", "e2e-mcp-server")
	if !eval[bool](s, `document.querySelector("#body-browser").checked`) {
		t.Error("the pick did not survive navigation")
	}
}
