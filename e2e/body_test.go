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
// a live one, the error for one that is down. The server named browser
// can then be picked, and the pick is kept in sessionStorage; host, which
// the relay does not name, cannot.
func TestBodyChoiceWithMCPServers(t *testing.T) {
	t.Parallel()
	srv := sdk.NewServer(&sdk.Implementation{Name: "e2e-mcp-server", Version: "4.5.6"}, nil)
	live := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(live.Close)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // nothing listens there any more

	s := newSession(t, withServeFlags("--mcp", "browser="+live.URL, "--mcp", "gone="+deadURL))
	s.expectConsole("502") // the relay's answer for the server that is gone
	s.expectConsole("Bad Gateway")
	s.open("/")
	note := s.waitText("#body-browser-note", "e2e-mcp-server 4.5.6")
	if !strings.Contains(note, "On this workbench: reachable: answered the MCP handshake as e2e-mcp-server 4.5.6") {
		t.Errorf("browser note %q", note)
	}
	relay := s.waitText("#relay-gone", "unreachable")
	if !strings.Contains(s.text("#relay-browser"), "e2e-mcp-server") {
		t.Errorf("relay list %q, %q", s.text("#relay-browser"), relay)
	}
	if eval[bool](s, `document.querySelector("#body-browser").disabled`) {
		t.Fatal("browser cannot be picked although its server is configured")
	}
	if !eval[bool](s, `document.querySelector("#body-host").disabled`) {
		t.Error("host can be picked although nothing offers it")
	}
	s.click("#body-browser")
	if got := eval[string](s, `sessionStorage.getItem("workbench.body")`); got != "browser" {
		t.Errorf("sessionStorage workbench.body = %q, want browser", got)
	}
	// No delegatic-mcp on the relay: the tab is asked, on the page where
	// the browser was picked, before any run.
	s.waitVisible("#local-policy-question")
	s.click("#local-policy-decline")
	s.waitText("#local-policy-notice", "are off in this tab")
	s.open("/skills")
	s.open("/")
	s.waitText("#body-browser-note", "e2e-mcp-server")
	if !eval[bool](s, `document.querySelector("#body-browser").checked`) {
		t.Error("the pick did not survive navigation")
	}
	s.waitText("#local-policy-notice", "are off in this tab")
	s.click("#local-policy-undo")
	s.waitVisible("#local-policy-question")
	if !eval[bool](s, `sessionStorage.getItem("workbench.local_policy") === null`) {
		t.Errorf("the undo left an answer in sessionStorage")
	}
}
