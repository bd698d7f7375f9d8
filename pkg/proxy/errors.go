package proxy

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Error codes, the "code" member of every JSON error the proxy writes.
// Callers and clients branch on these, never on the message.
const (
	CodeOriginMissing   = "origin_missing"       // 403: no Origin and not an attested same-origin GET
	CodeOriginForbidden = "origin_forbidden"     // 403: Origin null, foreign or repeated
	CodeMethod          = "method_not_allowed"   // 405
	CodeNotFound        = "not_found"            // 404: not under MountPath, or nothing after it
	CodePath            = "path_invalid"         // 400: a segment that is empty, a dot segment, encoded or outside the allowed bytes
	CodeQuery           = "query_invalid"        // 400
	CodeTooLong         = "uri_too_long"         // 414
	CodeHeader          = "header_invalid"       // 400: a forwarded header repeated or not printable ASCII
	CodeMediaType       = "unsupported_media"    // 415: a POST that is not application/json
	CodeBody            = "body_invalid"         // 400: a GET with a body, or an unreadable body
	CodeTooLarge        = "body_too_large"       // 413
	CodeUpstream        = "upstream_unreachable" // 502
	CodeRedirect        = "upstream_redirect"    // 502: the upstream answered 3xx
	CodeMisconfigured   = "proxy_misconfigured"  // 500: the deployment's settings are wrong
	CodeMCPUnknown      = "mcp_server_unknown"   // 404: no MCP server is configured under the name in the path
	CodeUpstreamBroken  = "upstream_broken"      // logged only: the upstream body failed mid-stream
	CodeClientGone      = "client_gone"          // logged only: the client left before the upstream answered
	CodeHostForbidden   = "host_forbidden"       // 421: the Host is not the workbench's own (DNS rebinding)
	CodeHeaderTooLarge  = "header_too_large"     // 431: a forwarded header value over MaxHeaderValueBytes
	CodeUpstreamTimeout = "upstream_timeout"     // 504: no response headers within the header timeout
	CodeUpstreamIdle    = "upstream_idle"        // logged only: the body stalled for the idle timeout and was cut
	CodeRateLimited     = "rate_limited"         // 429: the client's request budget is spent; see Retry-After
	CodeBodyTimeout     = "body_timeout"         // 408: the request body did not arrive whole within the body timeout
)

// Error is a refusal or failure the proxy reports to the client as
// {"error": {"code": Code, "message": Message}} with HTTP status Status.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message) }

func errorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorBody is the wire shape of an Error.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WriteError writes e as the proxy's JSON error response. Hosts of the
// handler (the Worker, the local server) use it for their own refusals so
// that the client sees one error shape.
func WriteError(w http.ResponseWriter, e *Error) {
	body, err := json.Marshal(errorBody{errorDetail{e.Code, e.Message}})
	if err != nil {
		// Two strings always marshal; keep the shape even so.
		body = []byte(`{"error":{"code":"internal","message":"encoding the error failed"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	secureAPIHeaders(h)
	w.WriteHeader(e.Status)
	w.Write(append(body, '\n'))
}
