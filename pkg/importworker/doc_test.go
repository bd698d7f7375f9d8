package importworker

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"workbench/pkg/library"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// TestReplyRoundTrip: what the worker answers is what the page's caller
// gets, through the JSON text the two instances exchange; a closed
// library stays store.ErrClosed on the page, so the page opens it again.
func TestReplyRoundTrip(t *testing.T) {
	rejected := library.Result{Name: "a.json", Status: library.Rejected,
		Problems: []verify.Problem{{Pointer: "/skill_id", Offset: 12, Message: "must be a string"}}}
	closed := fmt.Errorf("import a.json: %w", &store.Error{Op: "add bundle", Kind: store.ErrClosed})
	tests := []struct {
		name     string
		res      library.Result
		err      error
		wantErr  string
		wantKind error
	}{
		{"rejected", rejected, nil, "", nil},
		{"store closed", library.Result{Name: "a.json"}, closed, closed.Error(), store.ErrClosed},
		{"quota", library.Result{Name: "a.json"}, &store.Error{Op: "add bundle", Kind: store.ErrQuotaExceeded}, "store: add bundle: storage quota exceeded", store.ErrQuotaExceeded},
		{"not the store's", library.Result{Name: "a.json"}, errors.New("unknown operation"), "unknown operation", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(answer(7, tt.res, tt.err))
			if err != nil {
				t.Fatal(err)
			}
			r, err := decodeReply(string(b))
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.outcome()
			if r.Kind != kindResult || r.ID != 7 || res.Name != tt.res.Name || res.Status != tt.res.Status ||
				len(res.Problems) != len(tt.res.Problems) {
				t.Errorf("reply %+v, result %+v", r, res)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
			for _, k := range storeKinds {
				if got := errors.Is(err, k); got != (k == tt.wantKind) {
					t.Errorf("errors.Is(err, %v) = %t", k, got)
				}
			}
		})
	}
	if _, err := decodeReply("{"); err == nil {
		t.Error("a reply that is not JSON: no error")
	}
}
