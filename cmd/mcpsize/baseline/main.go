// Command baseline is the floor for cmd/mcpsize: one JSON POST with
// net/http and encoding/json and nothing else, so the size an MCP client
// adds on top of what any networked wasm program carries is visible.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

func main() {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"})
	resp, err := http.Post(os.Args[1], "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Println("FAIL", err)
		return
	}
	defer resp.Body.Close()
	var v map[string]any
	json.NewDecoder(resp.Body).Decode(&v)
	fmt.Println(resp.StatusCode, v)
}
