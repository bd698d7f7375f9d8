package body_test

import (
	"context"
	"testing"

	"workbench/pkg/body"
)

// plain is a body that is not a Perceiver: what it shows is its State.
type plain struct{ state any }

func (plain) Kind() body.Kind                            { return body.KindHost }
func (plain) Server() string                             { return "files" }
func (plain) Tools(context.Context) ([]body.Tool, error) { return nil, nil }
func (plain) Call(context.Context, string, map[string]any) (body.Result, error) {
	return body.Result{}, nil
}
func (p plain) State(context.Context) (any, error) { return p.state, nil }

// seeing is a body whose State holds more than it shows.
type seeing struct{ plain }

func (seeing) Perceive(context.Context) (any, error) { return "the page", nil }

func TestPerceive(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    body.Body
		want any
	}{
		{"a Perceiver shows what it perceives", seeing{plain{"the whole world"}}, "the page"},
		{"any other body shows its state", plain{"the listing"}, "the listing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := body.Perceive(context.Background(), tc.b)
			if err != nil || got != tc.want {
				t.Errorf("Perceive = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
