package schemas_test

import (
	"encoding/json"
	"errors"
	"testing"

	"workbench/schemas"
)

// What a backend must not send, each caught at its place.
func TestCapabilityContractRefuses(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name, schema, doc string
		want              want
	}{
		{"an identity in preflight", schemas.CapabilityPreflightRequest, `{"action":"a","inputs":{},"actor":"me"}`, want{"/actor", "additionalProperties"}},
		{"inputs not an object", schemas.CapabilityInvokeRequest, `{"action":"a","inputs":[1]}`, want{"/inputs", "type"}},
		{"running without a run", schemas.CapabilityInvokeAnswer, `{"status":"running"}`, want{"/run_id", "required"}},
		{"approval without its id", schemas.CapabilityInvokeAnswer, `{"status":"approval_required","run_id":"r"}`, want{"/approval_id", "required"}},
		{"entry without an id", schemas.CapabilityCatalog,
			`{"capabilities":[{"title":"t","input_schema":{},"side_effect":"read","availability":"available"}],"invoke":{"route":"/api/capabilities/{capability_id}/invoke"}}`,
			want{"/capabilities/0/capability_id", "required"}},
		{"another invoke route", schemas.CapabilityCatalog, `{"capabilities":[],"invoke":{"route":"/api/tools/{name}"}}`, want{"/invoke/route", "const"}},
		{"prose schema", schemas.CapabilityDescriptor,
			`{"capability_id":"a","title":"t","input_schema":"a query","side_effect":"read","availability":"available"}`, want{"/input_schema", "type"}},
		{"unknown decision", schemas.CapabilityPreview, `{"decision":"maybe"}`, want{"/decision", "enum"}},
		{"event without a sequence", schemas.CapabilityEventsPage, `{"events":[{"event_id":"e","run_id":"r","type":"x"}],"next":0,"more":false}`,
			want{"/events/0/sequence", "required"}},
		{"run without a start", schemas.CapabilityRuns, `{"runs":[{"run_id":"r","state":"running"}]}`, want{"/runs/0/started_at", "required"}},
		{"flat error", schemas.CapabilityError, `{"error":"no"}`, want{"/error", "type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc any
			if err := json.Unmarshal([]byte(tt.doc), &doc); err != nil {
				t.Fatal(err)
			}
			err := v.Validate(tt.schema, doc)
			var ve *schemas.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("accepted, or failed oddly: %v", err)
			}
			for _, f := range ve.Errors {
				if f.Pointer == tt.want.pointer && f.Keyword == tt.want.keyword {
					return
				}
			}
			t.Errorf("errors %v, want %s at %s", ve.Errors, tt.want.keyword, tt.want.pointer)
		})
	}
}
