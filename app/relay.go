package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"workbench/pkg/fetch"
	"workbench/pkg/mcp"
)

// errNoRelay: the origin has no MCP relay (GET /api/mcp/ answered 404).
var errNoRelay = errors.New("this workbench has no MCP relay")

// listMCPServers asks the same-origin MCP relay which servers it is
// configured to reach (GET /api/mcp/ → {"servers":[{"name":…}]}).
func listMCPServers(ctx context.Context, origin string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/api/mcp/", nil)
	if err != nil {
		return nil, err
	}
	resp, err := fetch.Default().Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /api/mcp/: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("GET /api/mcp/: reading the reply: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, errNoRelay
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET /api/mcp/: %s: %.200s", resp.Status, body)
	}
	var listing struct {
		Servers []struct {
			Name string `json:"name"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(body, &listing); err != nil {
		return nil, fmt.Errorf("GET /api/mcp/: the reply is not the relay's listing: %w", err)
	}
	names := make([]string, 0, len(listing.Servers))
	for _, s := range listing.Servers {
		names = append(names, s.Name)
	}
	return names, nil
}

// probeMCPServer performs the MCP handshake with a relayed server and ends
// the session: the only thing it shows is what the server answered. revs
// is the page's memo of negotiated revisions.
func probeMCPServer(ctx context.Context, origin, name string, revs *mcp.Revisions) (mcp.ServerInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := mcp.Dial(ctx, origin+"/api/mcp/"+name, &mcp.Options{Timeout: 10 * time.Second, Revisions: revs})
	if err != nil {
		return mcp.ServerInfo{}, err
	}
	info := c.ServerInfo()
	_ = c.Close(ctx) // the handshake answered; a failed DELETE changes nothing shown
	return info, nil
}
