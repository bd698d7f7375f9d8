package proxytest

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// MeasureAddedLatency runs b.N pairs of direct and proxied calls and
// reports their latency quantiles (µs) and the differences.
func MeasureAddedLatency(b *testing.B, method, direct, proxied, origin, body string) {
	cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
	call := func(url string) time.Duration {
		var br io.Reader
		if body != "" {
			br = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, url, br)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Authorization", Key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		start := time.Now()
		resp, err := cl.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("%s %s: %d %v", method, url, resp.StatusCode, err)
		}
		return d
	}
	call(direct) // warm both connections
	call(proxied)
	ds := make([]time.Duration, 0, b.N)
	ps := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ds = append(ds, call(direct))
		ps = append(ps, call(proxied))
	}
	b.StopTimer()
	q := func(s []time.Duration, p float64) float64 {
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(p*float64(len(s))))].Nanoseconds()) / 1e3
	}
	d50, d99, p50, p99 := q(ds, 0.50), q(ds, 0.99), q(ps, 0.50), q(ps, 0.99)
	b.ReportMetric(d50, "direct-p50-µs")
	b.ReportMetric(d99, "direct-p99-µs")
	b.ReportMetric(p50, "proxied-p50-µs")
	b.ReportMetric(p99, "proxied-p99-µs")
	b.ReportMetric(p50-d50, "added-p50-µs")
	b.ReportMetric(p99-d99, "added-p99-µs")
}
