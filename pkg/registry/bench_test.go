package registry_test

import (
	"fmt"
	"testing"

	"workbench/pkg/registry"
	"workbench/pkg/registry/registrytest"
	"workbench/pkg/verify"
)

// BenchmarkPublish is the CPU a publish costs the registry's Worker
// program besides storage: compiling the verifier (once per request, as
// each request starts a fresh Go instance), then Admit of the bundle —
// the fixture, and bundles grown towards MaxBundleBytes. The Worker's
// figure is BenchmarkWorkerdPublishCPU's (proxy/registry_test.go;
// docs/perf/registry.md).
func BenchmarkPublish(b *testing.B) {
	b.Run("verifier", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := verify.Standard(); err != nil {
				b.Fatal(err)
			}
		}
	})
	v, err := verify.Standard()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"fixture", registrytest.Publishable(b)},
		{"edges=100", registrytest.Sign(b, registrytest.Key(1), registrytest.Grown(b, v, 100))},
		{"edges=600", registrytest.Sign(b, registrytest.Key(1), registrytest.Grown(b, v, 600))},
		{"edges=1500", registrytest.Sign(b, registrytest.Key(1), registrytest.Grown(b, v, 1500))},
	} {
		if len(c.data) > registry.MaxBundleBytes {
			b.Fatalf("%s: %d bytes, over the cap", c.name, len(c.data))
		}
		if _, err := registry.Admit(v, c.data); err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
		b.Run(fmt.Sprintf("admit/%s/bytes=%d", c.name, len(c.data)), func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := registry.Admit(v, c.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
