package main

import (
	"errors"
	"strings"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
)

// describeErr says what failed in words for the palette. A backend's 401
// and 404 are explicit unavailable states: the palette never retries them
// with an identity of its own, and says so. A refusal of the governed
// invoke names its code and every input problem with its JSON pointer.
func describeErr(err error) string {
	var ue *httpapi.UnavailableError
	if errors.As(err, &ue) {
		if ue.Unauthorized() {
			return "unavailable: the backend answered 401 (not signed in to it). The workbench does not retry with an identity of its own. " + ue.Error()
		}
		return "unavailable: the backend answered 404 (not found). " + ue.Error()
	}
	var re *capability.RefusedError
	if errors.As(err, &re) {
		s := "refused (" + re.Code + "): " + re.Reason
		if len(re.Problems) > 0 {
			s += " — " + strings.Join(re.Problems, "; ")
		}
		return s
	}
	return err.Error()
}
