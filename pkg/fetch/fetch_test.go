package fetch_test

import (
	"net/http"

	"workbench/pkg/fetch"
)

// *http.Client is a Doer, so a caller that has one (a test reaching an
// httptest server, a native tool with its own transport) passes it where
// a client takes a fetch.Doer.
var _ fetch.Doer = (*http.Client)(nil)
