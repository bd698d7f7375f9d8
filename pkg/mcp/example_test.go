package mcp_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
)

type weatherIn struct {
	City string `json:"city"`
}

type weatherOut struct {
	City    string `json:"city"`
	Celsius int    `json:"celsius"`
}

// exampleServer is a go-sdk MCP server with one tool, standing in for any
// MCP server reachable over HTTP.
func exampleServer() *httptest.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "forecast",
		Description: "Tomorrow's temperature.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *sdk.CallToolRequest, in weatherIn) (*sdk.CallToolResult, weatherOut, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 1, Message: "asked the sky"})
		}
		out := weatherOut{City: in.City, Celsius: 21}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%d °C in %s", out.Celsius, in.City)}}}, out, nil
	})
	return httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
}

func Example() {
	srv := exampleServer()
	defer srv.Close()
	ctx := context.Background()

	// In a browser nil options send through the page's fetch; here the
	// test server's own client reaches it.
	c, err := mcp.Dial(ctx, srv.URL, &mcp.Options{HTTPClient: srv.Client()})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close(ctx)
	info := c.ServerInfo()
	fmt.Println("server:", info.ServerInfo.Name, info.ProtocolVersion)

	tools, err := c.ListTools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		bt := mcp.BodyTool(t, "&body.weather")
		fmt.Println("tool:", bt.Name, "read-only:", *bt.Annotations.ReadOnlyHint)
	}

	res, err := c.CallTool(ctx, "forecast", map[string]any{"city": "Lyon"},
		mcp.WithProgress(func(p mcp.Progress) { fmt.Println("progress:", p.Message) }))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("text:", res.Text())
	fmt.Println("structured:", string(res.StructuredContent))
	fmt.Println("tool error:", res.IsError)
	// Output:
	// server: weather 2025-11-25
	// tool: forecast read-only: true
	// progress: asked the sky
	// text: 21 °C in Lyon
	// structured: {"celsius":21,"city":"Lyon"}
	// tool error: false
}

// One memo for all the dials a program (in the browser: a page) makes: it
// remembers which revision each server spoke, so that a server that
// speaks only the sessionless revision is discovered at once from the
// second dial on, without the handshake it refuses.
func ExampleRevisions() {
	srv := exampleServer()
	defer srv.Close()
	ctx := context.Background()
	memo := &mcp.Revisions{}
	opts := &mcp.Options{HTTPClient: srv.Client(), Revisions: memo}
	for range 2 {
		c, err := mcp.Dial(ctx, srv.URL, opts)
		if err != nil {
			log.Fatal(err)
		}
		c.Close(ctx)
	}
	fmt.Println("remembered:", memo.Revision(srv.URL))
	// Output:
	// remembered: 2025-11-25
}
