package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"workbench/pkg/fetch"
	"workbench/pkg/mcp"
	"workbench/pkg/session"
)

// errNoRelay: the origin has no MCP relay (GET /api/mcp/ answered 404).
var errNoRelay = errors.New("this workbench has no MCP relay")

// mcpPlace is where MCP servers are listed and reached: the same-origin
// relay (/api/mcp/<name>), or the bodies the visitor runs on their own
// machine with `workbench bodies` (http://127.0.0.1:PORT/mcp/<name>), to
// which every request carries the pairing secret.
type mcpPlace struct {
	base   string      // the listing's URL; a server's endpoint is base + name
	header http.Header // added to every request; nil for the relay
}

// relayPlace is the same-origin relay of origin.
func relayPlace(origin string) mcpPlace { return mcpPlace{base: origin + "/api/mcp/"} }

// pairedPlace is the bodies server of a pairing. Its address is a
// loopback one (session.CheckPairing), the only kind the page's CSP lets
// it connect to.
func pairedPlace(p session.Pairing) mcpPlace {
	return mcpPlace{base: "http://" + p.Addr + "/mcp/", header: http.Header{"Authorization": {"Bearer " + p.Secret}}}
}

// where says in words where pl's servers are.
func (pl mcpPlace) where() string {
	if pl.header != nil {
		return "on this computer, paired at " + strings.TrimSuffix(strings.TrimPrefix(pl.base, "http://"), "/mcp/")
	}
	return "on this workbench's relay"
}

// endpoint is the MCP endpoint of the server called name.
func (pl mcpPlace) endpoint(name string) string { return pl.base + name }

// options are the MCP client options for a server of pl: the pairing
// secret, when there is one, goes with every request to it and to
// nothing else.
func (pl mcpPlace) options(timeout time.Duration, revs *mcp.Revisions) *mcp.Options {
	return &mcp.Options{Timeout: timeout, Revisions: revs, Header: pl.header.Clone()}
}

// list asks pl which servers it reaches (GET <base> →
// {"servers":[{"name":…}]}); the relay and `workbench bodies` answer the
// same listing.
func (pl mcpPlace) list(ctx context.Context) ([]string, error) {
	what := "GET " + strings.TrimPrefix(pl.base, "http://")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pl.base, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range pl.header {
		req.Header[k] = v
	}
	resp, err := fetch.Default().Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the reply: %w", what, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && pl.header == nil:
		return nil, errNoRelay
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: %s: %.200s", what, resp.Status, body)
	}
	var listing struct {
		Servers []struct {
			Name string `json:"name"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(body, &listing); err != nil {
		return nil, fmt.Errorf("%s: the reply is not a listing of MCP servers: %w", what, err)
	}
	names := make([]string, 0, len(listing.Servers))
	for _, s := range listing.Servers {
		names = append(names, s.Name)
	}
	return names, nil
}

// probe performs the MCP handshake with the server called name and ends
// the session: the only thing it shows is what the server answered. revs
// is the page's memo of negotiated revisions.
func (pl mcpPlace) probe(ctx context.Context, name string, revs *mcp.Revisions) (mcp.ServerInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := mcp.Dial(ctx, pl.endpoint(name), pl.options(10*time.Second, revs))
	if err != nil {
		return mcp.ServerInfo{}, err
	}
	info := c.ServerInfo()
	_ = c.Close(ctx) // the handshake answered; a failed DELETE changes nothing shown
	return info, nil
}

// folders asks a host body which folders its file tools may touch (the
// reference filesystem server's list_allowed_directories), as the server
// says it: the page shows the path the files really are in.
func (pl mcpPlace) folders(ctx context.Context, name string, revs *mcp.Revisions) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := mcp.Dial(ctx, pl.endpoint(name), pl.options(10*time.Second, revs))
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	res, err := c.CallTool(ctx, "list_allowed_directories", map[string]any{})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("list_allowed_directories failed: %s", res.Text())
	}
	return strings.TrimSpace(res.Text()), nil
}
