package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"workbench/pkg/fetch"
)

// Client speaks a registry's HTTP API (docs/registry.md) at one origin. It
// follows no redirect (fetch.NoRedirects): what it reads comes from the
// registry it was made for, and nothing it sends goes elsewhere.
type Client struct {
	// Registry is the registry's origin.
	Registry string
	doer     fetch.Doer
}

// NewClient returns a client of the registry at origin registry, sending
// through d (fetch.Default when nil).
func NewClient(registry string, d fetch.Doer) (*Client, error) {
	origin, err := Origin(registry)
	if err != nil {
		return nil, err
	}
	if d == nil {
		d = fetch.Default()
	}
	return &Client{Registry: origin, doer: fetch.NoRedirects(d)}, nil
}

// APIError is a registry's refusal or failure, as it answered: the HTTP
// status, its code and message, and the problems of a refused bundle.
type APIError struct {
	Status   int
	Code     string
	Message  string
	Problems []Problem
}

func (e *APIError) Error() string {
	return fmt.Sprintf("the registry answered %d %s: %s", e.Status, e.Code, e.Message)
}

// maxAnswer bounds an answer other than a bundle.
const maxAnswer = 1 << 20

// Publish posts the bundle bytes data and returns the registry's entry:
// the new one, or the one it already held for the same content hash.
func (c *Client) Publish(ctx context.Context, data []byte) (Entry, error) {
	var e Entry
	return e, c.post(ctx, BundlesPath, data, &e)
}

// Withdraw posts the withdrawal w and returns the entry as withdrawn.
func (c *Client) Withdraw(ctx context.Context, w Withdrawal) (Entry, error) {
	body, err := json.Marshal(w)
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	return e, c.post(ctx, WithdrawalsPath, body, &e)
}

// Status asks whether the deployment at c's origin has a registry.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	return s, c.get(ctx, MountPath, &s)
}

// Entry returns the index entry of the bundle hash.
func (c *Client) Entry(ctx context.Context, hash string) (Entry, error) {
	if !ValidHash(hash) {
		return Entry{}, fmt.Errorf("registry: %q is not a content hash", clip(hash))
	}
	var e Entry
	return e, c.get(ctx, SkillsPath+"/"+hash, &e)
}

// List returns one page of the listing: entries whose name, slug or
// description holds text and whose signer is the key id signer, each when
// not empty, after cursor (a Page's NextCursor; "" for the first page).
func (c *Client) List(ctx context.Context, text, signer, cursor string, limit int) (Page, error) {
	v := url.Values{}
	for k, s := range map[string]string{"q": text, "signer": signer, "cursor": cursor} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	path := SkillsPath
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var p Page
	return p, c.get(ctx, path, &p)
}

// Bundle returns the bytes the registry serves for hash, at most
// MaxBundleBytes. They are what the registry says; the caller checks
// their content hash before trusting them to be the bundle named.
func (c *Client) Bundle(ctx context.Context, hash string) ([]byte, error) {
	if !ValidHash(hash) {
		return nil, fmt.Errorf("registry: %q is not a content hash", clip(hash))
	}
	resp, err := c.do(ctx, http.MethodGet, BundlesPath+"/"+hash, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, answerError(resp)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBundleBytes+1))
	if err != nil {
		return nil, fmt.Errorf("registry: reading the bundle: %w", err)
	}
	if len(b) > MaxBundleBytes {
		return nil, fmt.Errorf("registry: the bundle served is over %d bytes, more than a registry takes", MaxBundleBytes)
	}
	return b, nil
}

func (c *Client) do(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Registry+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.doer.Do(req)
	if err != nil {
		return nil, fmt.Errorf("registry at %s: %w", c.Registry, err)
	}
	return resp, nil
}

func (c *Client) post(ctx context.Context, path string, body []byte, out any) error {
	resp, err := c.do(ctx, http.MethodPost, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decode(resp, out)
}

func (c *Client) get(ctx context.Context, path string, out any) error {
	resp, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decode(resp, out)
}

// decode reads a 200 answer into out, or returns the registry's error.
func decode(resp *http.Response, out any) error {
	if resp.StatusCode != http.StatusOK {
		return answerError(resp)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return fmt.Errorf("registry: reading the answer: %w", err)
	}
	if len(b) > maxAnswer {
		return fmt.Errorf("registry: an answer over %d bytes", maxAnswer)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("registry: the answer is not what the registry's API sends: %w", err)
	}
	return nil
}

// answerError reads a registry's error answer. A server that is not a
// registry (a site without one, a proxy) is named by its status alone.
func answerError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	var body struct {
		Error struct {
			Code     string    `json:"code"`
			Message  string    `json:"message"`
			Problems []Problem `json:"problems"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &body); err != nil || body.Error.Code == "" {
		return &APIError{Status: resp.StatusCode, Code: "not_a_registry",
			Message: fmt.Sprintf("%s, and not a registry's error", http.StatusText(resp.StatusCode))}
	}
	return &APIError{Status: resp.StatusCode, Code: body.Error.Code, Message: body.Error.Message, Problems: body.Error.Problems}
}
