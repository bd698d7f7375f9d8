package services

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"workbench/pkg/fetch"
)

// maxListing bounds the relay's listing answer.
const maxListing = 1 << 20

// Discover asks the workbench's same-origin MCP relay at origin which
// servers it forwards to (GET origin/api/mcp/, answered
// {"servers":[{"name":…}]}) and returns the Config that reaches each of
// them through the relay: the app's services are exactly what the
// deployment's allowlist names. header is added to the request (natively,
// the relay wants an Origin; a browser's fetch sends what it needs); hc
// sends the request, an *http.Client or any fetch.Doer, nil meaning
// fetch.Default().
func Discover(ctx context.Context, hc fetch.Doer, origin string, header http.Header) (Config, error) {
	if hc == nil {
		hc = fetch.Default()
	}
	u := strings.TrimRight(origin, "/") + "/api/mcp/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Config{}, fmt.Errorf("services: list the relay's servers: %w", err)
	}
	for k, v := range header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return Config{}, fmt.Errorf("services: list the relay's servers at %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListing+1))
	if err != nil {
		return Config{}, fmt.Errorf("services: list the relay's servers at %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return Config{}, fmt.Errorf("services: list the relay's servers at %s: HTTP %d: %s", u, resp.StatusCode, excerpt(string(body)))
	}
	if len(body) > maxListing {
		return Config{}, fmt.Errorf("services: the relay's listing at %s is over %d bytes", u, maxListing)
	}
	var l struct {
		Servers []struct {
			Name string `json:"name"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return Config{}, fmt.Errorf("services: the relay's listing at %s is not {\"servers\":[{\"name\":…}]}: %v", u, err)
	}
	names := make([]string, 0, len(l.Servers))
	for i, s := range l.Servers {
		if s.Name == "" {
			return Config{}, fmt.Errorf("services: the relay's listing at %s: /servers/%d/name is empty", u, i)
		}
		names = append(names, s.Name)
	}
	return Relay(origin, names...), nil
}
