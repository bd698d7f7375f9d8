//go:build !js

package fetch

import "net/http"

// Default returns the platform's Doer: natively, http.DefaultClient.
func Default() Doer { return http.DefaultClient }
