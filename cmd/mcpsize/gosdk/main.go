// Command gosdk is the size probe for the go-sdk MCP client, doing what
// cmd/mcpsize/ours does: connect, list the tools, call "echo" with
// progress, print what it got.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx := context.Background()
	progress := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "size-probe", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress++ },
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: os.Args[1]}, nil)
	if err != nil {
		fmt.Println("FAIL", err)
		return
	}
	defer cs.Close()
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			fmt.Println("FAIL", err)
			return
		}
		n++
	}
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "wasm"}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		fmt.Println("FAIL", err)
		return
	}
	text := ""
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text += t.Text
		}
	}
	structured, _ := json.Marshal(res.StructuredContent)
	fmt.Println("tools", n)
	fmt.Println("text", text)
	fmt.Println("structured", string(structured))
	fmt.Println("progress", progress)
	fmt.Println("PASS")
}
