package openrouter

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hang answers nothing (or, for a stream, one event and then nothing)
// until the client gives up.
func hang(stream bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets net/http notice the client hanging up.
		io.Copy(io.Discard, r.Body)
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hi\"}}]}\n\n")
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}
}

// A server that never answers ends each request at the client's limit
// with a *TimeoutError that names it, not a hang; the caller's own
// cancellation stays context.Canceled.
func TestTimeout(t *testing.T) {
	const limit = 150 * time.Millisecond
	tests := []struct {
		name   string
		stream bool
		call   func(*Client, context.Context) error
	}{
		{"Chat", false, func(c *Client, ctx context.Context) error { _, err := c.Chat(ctx, simpleRequest); return err }},
		{"Key", false, func(c *Client, ctx context.Context) error { _, err := c.Key(ctx); return err }},
		{"ChatStream before the first event", false, func(c *Client, ctx context.Context) error {
			_, err := c.ChatStream(ctx, simpleRequest, nil)
			return err
		}},
		{"ChatStream after the first event", true, func(c *Client, ctx context.Context) error {
			_, err := c.ChatStream(ctx, simpleRequest, nil)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := server(t, hang(tt.stream), WithTimeout(limit))
			start := time.Now()
			err := tt.call(c, context.Background())
			elapsed := time.Since(start)
			var te *TimeoutError
			if !errors.As(err, &te) || te.Limit != limit || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v, want a TimeoutError of %s", err, limit)
			}
			if !strings.Contains(err.Error(), "no complete reply within 150ms") {
				t.Errorf("error %q does not name the limit", err)
			}
			if elapsed > 5*time.Second {
				t.Errorf("took %s for a limit of %s", elapsed, limit)
			}

			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(limit/3, cancel)
			err = tt.call(c, ctx)
			if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
				t.Errorf("cancelled by the caller: %v, want context.Canceled and no TimeoutError", err)
			}
		})
	}
}

// A limit applies to each request, so a reply within it succeeds however
// long the client lives; a negative limit is refused.
func TestTimeoutPerRequest(t *testing.T) {
	c, _ := server(t, respond(200, nil, okBody), WithTimeout(time.Second))
	for i := 0; i < 3; i++ {
		if _, err := c.Chat(context.Background(), simpleRequest); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(testKey, WithBaseURL(OpenRouterAPI), WithTimeout(-time.Second)); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative timeout: %v", err)
	}
}
