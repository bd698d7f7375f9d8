package openrouter

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// cannedTransport answers every request with the same body, without a
// network, so a benchmark measures the client alone.
type cannedTransport struct {
	contentType, body string
}

func (c cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {c.contentType}},
		Body:       io.NopCloser(strings.NewReader(c.body)),
		Request:    r,
	}, nil
}

// BenchmarkChatStream parses and reassembles a stream of 200 events (text
// and a tool call whose arguments come in 100 fragments), as OpenRouter
// sends it. Reported per stream; bytes/s is the SSE parsing rate.
func BenchmarkChatStream(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(": OPENROUTER PROCESSING\n\n")
	for i := range 100 {
		fmt.Fprintf(&sb, "data: {\"id\":\"gen-1\",\"provider\":\"P\",\"model\":\"x/y\",\"object\":\"chat.completion.chunk\",\"created\":1,\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"word%d \"},\"finish_reason\":null}]}\n\n", i)
	}
	sb.WriteString(`data: {"id":"gen-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"fill","arguments":"{\"text\":\""}}]}}]}` + "\n\n")
	for range 98 {
		sb.WriteString(`data: {"id":"gen-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"abcdefgh"}}]}}]}` + "\n\n")
	}
	sb.WriteString(`data: {"id":"gen-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n")
	sb.WriteString(`data: {"id":"gen-1","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"cost":0.001}}` + "\n\ndata: [DONE]\n\n")
	body := sb.String()

	c, err := New(testKey, WithBaseURL("http://127.0.0.1:1/api/v1"), WithHTTPClient(&http.Client{Transport: cannedTransport{"text/event-stream", body}}))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.ChatStream(ctx, simpleRequest, func(Delta) error { return nil })
		if err != nil || len(r.Message().ToolCalls) != 1 {
			b.Fatal(r, err)
		}
	}
}
