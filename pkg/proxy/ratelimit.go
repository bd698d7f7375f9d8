package proxy

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The request budget of one client under /api/: RateLimit requests per
// RatePeriod. The Worker's rate-limiting binding (wrangler.toml, "RL")
// is configured with the same numbers, and `workbench serve` applies them
// with a Limiter. An agent run makes a few requests a second at most
// (one model call and the tool calls it asks for), so the budget leaves
// room for a fast replay while keeping one client from turning the
// proxy into a load generator.
const (
	RateLimit  = 600
	RatePeriod = 60 * time.Second
)

// Limiter counts requests per client key in fixed windows of one period,
// the way the Worker's binding does: at most limit requests per key per
// window. All counts are dropped when a window ends, so memory is bounded
// by the clients of one period.
type Limiter struct {
	limit  int
	period time.Duration

	mu     sync.Mutex
	window time.Time // start of the current window
	counts map[string]int
}

// NewLimiter returns a Limiter allowing limit requests per key per period.
func NewLimiter(limit int, period time.Duration) (*Limiter, error) {
	if limit <= 0 || period <= 0 {
		return nil, fmt.Errorf("proxy: rate limit %d per %s: both must be positive", limit, period)
	}
	return &Limiter{limit: limit, period: period, counts: map[string]int{}}, nil
}

// Allow counts one request from key at now and reports whether it is
// within the budget; when it is not, also how long until the window ends.
func (l *Limiter) Allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.window) >= l.period || now.Before(l.window) {
		l.window = now
		clear(l.counts)
	}
	if l.counts[key] >= l.limit {
		return false, l.window.Add(l.period).Sub(now)
	}
	l.counts[key]++
	return true, 0
}

// WriteRateLimited answers 429 with Retry-After, in whole seconds and at
// least one, and the package's JSON error naming the budget.
func WriteRateLimited(w http.ResponseWriter, limit int, period, retryAfter time.Duration) {
	secs := int((retryAfter + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	WriteError(w, errorf(http.StatusTooManyRequests, CodeRateLimited,
		"more than %d requests in %s from this client; retry after %d s", limit, period, secs))
}
