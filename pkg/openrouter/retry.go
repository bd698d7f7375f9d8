package openrouter

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy makes the client repeat a request that failed with a
// retryable *APIError (408, 429, 502, 503; see APIError.Retryable). It is
// off unless the caller asks for it with WithRetry, because a retried chat
// completion may be billed again.
//
// The wait before each retry is the server's Retry-After when it sent one,
// otherwise Backoff doubled for each retry already made. A retry happens
// only while both bounds hold: fewer than MaxAttempts requests made, and
// the waits so far plus the next one within MaxWait. When the next wait
// would break MaxWait the last error is returned at once, its RetryAfter
// intact, rather than waiting only to fail. Waits end early when the
// request's context is done.
//
// A stream is retried only for an error that came before its first event.
type RetryPolicy struct {
	// MaxAttempts counts the first request; 0 or 1 means no retry.
	MaxAttempts int
	// MaxWait bounds the total time spent waiting between attempts.
	MaxWait time.Duration
	// Backoff is the first wait when the server gave no Retry-After;
	// zero means one second.
	Backoff time.Duration
}

// maxRetryAfter caps a Retry-After so that absurd values cannot overflow a
// time.Duration; any policy gives up long before it.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads Retry-After as delay-seconds or an HTTP date
// (RFC 9110 §10.2.3). A date in the past, or a value in neither form,
// gives zero.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			var ne *strconv.NumError
			if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
				return maxRetryAfter
			}
			return 0
		}
		if n > uint64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		return time.Duration(n) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	d := t.Sub(now)
	if d <= 0 {
		return 0
	}
	// An HTTP date has whole seconds; round up so a retry never comes early.
	d = (d + time.Second - 1).Truncate(time.Second)
	return min(d, maxRetryAfter)
}

// retrying runs attempt until it succeeds, fails in a way the policy does
// not retry, or the policy's bounds are reached.
func (c *Client) retrying(ctx context.Context, attempt func() error) error {
	p := c.retry
	var waited time.Duration
	backoff := p.Backoff
	if backoff <= 0 {
		backoff = time.Second
	}
	for n := 1; ; n++ {
		err := attempt()
		var ae *APIError
		if err == nil || n >= p.MaxAttempts || !errors.As(err, &ae) || !ae.Retryable() {
			return err
		}
		wait := ae.RetryAfter
		if wait == 0 {
			wait = backoff
			backoff *= 2
		}
		if waited+wait > p.MaxWait {
			return err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return errors.Join(err, serr)
		}
		waited += wait
	}
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
