//go:build js

package session

import (
	"errors"
	"fmt"

	"github.com/hack-pad/safejs"
)

// Open returns the Storage of this tab: window.sessionStorage. It fails
// when the browser refuses access to it (storage disabled, sandboxed
// frame).
func Open() (*Storage, error) {
	ss, err := safejs.Global().Get("sessionStorage")
	if err != nil {
		return nil, fmt.Errorf("session: window.sessionStorage: %w", err)
	}
	if ss.IsUndefined() || ss.IsNull() {
		return nil, errors.New("session: this browser has no sessionStorage")
	}
	return &Storage{b: browser{ss}}, nil
}

type browser struct{ ss safejs.Value }

func (b browser) get(name string) (string, bool, error) {
	v, err := b.ss.Call("getItem", name)
	if err != nil {
		return "", false, err
	}
	if v.IsNull() || v.IsUndefined() {
		return "", false, nil
	}
	s, err := v.String()
	return s, err == nil, err
}

func (b browser) set(name, value string) error {
	_, err := b.ss.Call("setItem", name, value)
	return err
}

func (b browser) remove(name string) error {
	_, err := b.ss.Call("removeItem", name)
	return err
}
