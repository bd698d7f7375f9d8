package main

import (
	"net"
	"net/http"
	"time"
)

// Limits of the command line's requests to OpenRouter, so that a server
// that never answers, or stalls part way, ends the run with an error
// rather than a hang.
const (
	// connectTimeout bounds the TCP connection, and again the TLS
	// handshake.
	connectTimeout = 10 * time.Second
	// headerTimeout bounds the wait from a request sent to the status
	// line of its reply; OpenRouter sends it before the model finishes.
	headerTimeout = 2 * time.Minute
	// defaultModelTimeout is --model-timeout's default: one request, from
	// sending it to the last byte of the reply.
	defaultModelTimeout = 5 * time.Minute
)

// modelHTTPClient is what the OpenRouter client sends through: connect
// and TLS handshake within connectTimeout, the reply's status line within
// header (zero: no limit of its own). The whole request's limit is the
// OpenRouter client's (WithTimeout), and redirects are refused there.
func modelHTTPClient(header time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   connectTimeout,
		ResponseHeaderTimeout: header,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       90 * time.Second,
	}}
}

// headerLimit is the header timeout under a whole-request limit: none of
// its own when the whole request's limit comes first anyway, so that the
// error names the limit the user set.
func headerLimit(limit time.Duration) time.Duration {
	if limit <= headerTimeout {
		return 0
	}
	return headerTimeout
}
