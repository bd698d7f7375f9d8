package store

import "testing"

func TestParseSort(t *testing.T) {
	tests := []struct {
		in      string
		want    Sort
		wantErr bool
	}{
		{"", SortNewest, false},
		{"newest", SortNewest, false},
		{"name", SortName, false},
		{"updated", SortUpdated, false},
		{"verdict", SortVerdict, false},
		{"Name", SortNewest, true},
		{"size", SortNewest, true},
	}
	for _, tc := range tests {
		got, err := ParseSort(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParseSort(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
		if err == nil {
			if back, _ := ParseSort(got.String()); back != got {
				t.Errorf("ParseSort(%q.String()) = %q", got, back)
			}
		}
	}
}
