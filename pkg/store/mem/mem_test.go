package mem_test

import (
	"testing"

	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s := mem.New()
		t.Cleanup(func() { s.Close() })
		return s
	})
}
