//go:build js && wasm

// Package r2bucket keeps the registry's bundle bytes (server.Bucket) in a
// Cloudflare R2 bucket, through syumai/workers' R2 package, one object per
// bundle under its content hash, stored as application/json.
package r2bucket

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/syumai/workers/cloudflare/r2"
)

// Bucket is an R2 bucket bound to the Worker.
type Bucket struct {
	b *r2.Bucket
}

// Open returns the bucket bound to the Worker as binding; an error when
// there is no such binding.
func Open(binding string) (*Bucket, error) {
	b, err := r2.NewBucket(binding)
	if err != nil {
		return nil, fmt.Errorf("r2bucket: the R2 binding %s: %w", binding, err)
	}
	return &Bucket{b: b}, nil
}

// Exists reports whether an object is stored under key.
func (x *Bucket) Exists(_ context.Context, key string) (bool, error) {
	o, err := x.b.Head(key)
	if err != nil {
		return false, fmt.Errorf("r2bucket: head %s: %w", key, err)
	}
	return o != nil, nil
}

// Put stores data under key.
func (x *Bucket) Put(_ context.Context, key string, data []byte) error {
	_, err := x.b.Put(key, io.NopCloser(bytes.NewReader(data)), &r2.PutOptions{
		HTTPMetadata: r2.HTTPMetadata{ContentType: "application/json"},
	})
	if err != nil {
		return fmt.Errorf("r2bucket: put %s: %w", key, err)
	}
	return nil
}

// Get returns the bytes under key.
func (x *Bucket) Get(_ context.Context, key string) ([]byte, bool, error) {
	o, err := x.b.Get(key)
	if err != nil {
		return nil, false, fmt.Errorf("r2bucket: get %s: %w", key, err)
	}
	if o == nil {
		return nil, false, nil
	}
	data, err := io.ReadAll(o.Body)
	if err != nil {
		return nil, false, fmt.Errorf("r2bucket: read %s: %w", key, err)
	}
	return data, true, nil
}
