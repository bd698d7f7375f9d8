package openrouter_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
)

// A model is offered a tool and calls it. In the browser the client is
// built with openrouter.New(key) alone and goes through the same-origin
// proxy through the page's fetch; here it talks to a scripted stand-in for
// OpenRouter through net/http.
func ExampleClient_Chat() {
	srv := openroutertest.Start(openroutertest.WithScript(openroutertest.Script{
		Model:       "openai/gpt-4o",
		CostPerCall: 0.0012,
		Steps:       []openroutertest.Step{openroutertest.ToolCall("open", map[string]string{"url": "https://example.org"})},
	}))
	defer srv.Close()

	c, err := openrouter.New(srv.Key, openrouter.WithBaseURL(srv.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := c.Chat(context.Background(), openrouter.Request{
		Model:    "openai/gpt-4o",
		Messages: []openrouter.Message{{Role: openrouter.RoleUser, Content: "Open example.org"}},
		Tools:    []openrouter.Tool{openTool},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := resp.Message().ToolCalls[0]
	cost, _ := resp.Cost()
	fmt.Println(resp.Choices[0].FinishReason, call.Function.Name, call.Function.Arguments)
	fmt.Printf("cost $%.4f\n", cost)
	// Output:
	// tool_calls open {"url":"https://example.org"}
	// cost $0.0012
}

// Text arrives in pieces; the returned response is the whole reply.
func ExampleClient_ChatStream() {
	srv := openroutertest.Start(openroutertest.WithScript(openroutertest.Script{
		Model: "x/y", CostPerCall: 0.0003,
		Steps: []openroutertest.Step{openroutertest.Answer("The page is about examples.")},
	}))
	defer srv.Close()

	c, _ := openrouter.New(srv.Key, openrouter.WithBaseURL(srv.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	var pieces []string
	resp, err := c.ChatStream(context.Background(), openrouter.Request{
		Model:    "x/y",
		Messages: []openrouter.Message{{Role: openrouter.RoleUser, Content: "Summarize"}},
	}, func(d openrouter.Delta) error {
		if d.Content != "" {
			pieces = append(pieces, d.Content)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cost, _ := resp.Cost()
	fmt.Println(strings.Join(pieces, "|"))
	fmt.Println(resp.Message().Content)
	fmt.Printf("cost $%.4f\n", cost)
	// Output:
	// The page| is abou|t exampl|es.
	// The page is about examples.
	// cost $0.0003
}

// Callers branch on the class of failure, not on status codes.
func ExampleAPIError() {
	srv := openroutertest.Start(openroutertest.WithScript(openroutertest.Script{
		Model: "x/y",
		Steps: []openroutertest.Step{openroutertest.Error(402, "Insufficient credits")},
	}))
	defer srv.Close()

	c, _ := openrouter.New(srv.Key, openrouter.WithBaseURL(srv.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	_, err := c.Chat(context.Background(), openrouter.Request{
		Model:    "x/y",
		Messages: []openrouter.Message{{Role: openrouter.RoleUser, Content: "hi"}},
	})
	switch {
	case errors.Is(err, openrouter.ErrOutOfCredit):
		fmt.Println("add credit:", err)
	case errors.Is(err, openrouter.ErrBadKey):
		fmt.Println("check the key")
	}
	// Output:
	// add credit: openrouter: 402 Payment Required: Insufficient credits
}
