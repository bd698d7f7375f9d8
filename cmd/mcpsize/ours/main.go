// Command ours is the size probe for package mcp: it connects to the MCP
// server named by its argument, lists the tools and calls "echo" with
// progress, printing what it got. cmd/mcpsize builds it for js/wasm.
package main

import (
	"context"
	"fmt"
	"os"

	"workbench/pkg/mcp"
)

func main() {
	ctx := context.Background()
	c, err := mcp.Dial(ctx, os.Args[1], nil)
	if err != nil {
		fmt.Println("FAIL", err)
		return
	}
	defer c.Close(ctx)
	tools, err := c.ListTools(ctx)
	if err != nil {
		fmt.Println("FAIL", err)
		return
	}
	progress := 0
	res, err := c.CallTool(ctx, "echo", map[string]any{"text": "wasm"},
		mcp.WithProgress(func(mcp.Progress) { progress++ }))
	if err != nil {
		fmt.Println("FAIL", err)
		return
	}
	fmt.Println("tools", len(tools))
	fmt.Println("text", res.Text())
	fmt.Println("structured", string(res.StructuredContent))
	fmt.Println("progress", progress)
	fmt.Println("PASS")
}
