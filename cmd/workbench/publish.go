package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"workbench/pkg/registry"
	"workbench/pkg/signature"
	"workbench/pkg/verify"
)

// Exit statuses of workbench publish and withdraw.
const (
	exitPublishOK      = 0 // published (or already published), or withdrawn
	exitPublishRefused = 1 // the registry, or the same check here, refused it; nothing was stored
	exitPublishUsage   = 2 // the command line, a file, the key or the network failed
)

// registryEnv names the registry --registry defaults to.
const registryEnv = "WORKBENCH_REGISTRY"

// registryTimeout bounds one command's exchange with a registry.
const registryTimeout = 2 * time.Minute

func runPublish(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("publish", "publish --key FILE [--registry URL] BUNDLE",
		`Signs BUNDLE with the Ed25519 key (replacing any signature) and publishes it to a skill
registry: the workbench at URL (default $`+registryEnv+`). The bundle is checked first
as the registry checks it — it must verify with no overclaim, be redacted as
transcript_pii or full with nothing left for the secret detector (workbench export), and
be at most 2 MiB — and is sent only if it passes. Prints the bundle's link and the page
that imports it. Exit status: 0 published (or already there); 1 refused, with the
reasons; 2 bad usage, an unreadable file or key, or a registry that cannot be reached.`, stderr)
	keyFile := fs.String("key", "", "the private key `FILE` keygen made")
	reg := fs.String("registry", os.Getenv(registryEnv), "the registry's `URL` (its workbench's origin)")
	if code, done := parseFlags(fs, args, exitPublishOK, exitPublishUsage); done {
		return code
	}
	if *keyFile == "" || fs.NArg() != 1 {
		fs.Usage()
		return exitPublishUsage
	}
	signer, c, code := registrySetup("publish", *keyFile, *reg, stderr)
	if signer == nil {
		return code
	}
	data, err := readInput(fs.Arg(0), nil)
	if err != nil {
		fmt.Fprintf(stderr, "workbench publish: %v\n", err)
		return exitPublishUsage
	}
	v, err := verify.Standard()
	if err != nil {
		fmt.Fprintf(stderr, "workbench publish: %v\n", err)
		return exitPublishUsage
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	p, err := newFlows(v, nil, nil, false).Publish(ctx, c, signer, data)
	if err != nil {
		return registryFailed("publish", fs.Arg(0), err, stderr)
	}
	e := p.Entry
	fmt.Fprintf(stdout, "published %q v%d to %s\n", e.Name, e.Version, c.Registry)
	if e.SignerKeyID != p.SignedBy {
		fmt.Fprintf(stdout, "note: the registry already held this content signed by key %s, and keeps that copy; yours (key %s) was not stored\n", e.SignerKeyID, p.SignedBy)
	}
	fmt.Fprintf(stdout, "content hash   %s\n", e.ContentHash)
	fmt.Fprintf(stdout, "signed by key  %s\n", e.SignerKeyID)
	fmt.Fprintf(stdout, "verdict        %s (re-derived by the registry when it was published)\n", e.Verdict)
	fmt.Fprintf(stdout, "published at   %s\n", e.PublishedAt)
	if e.Withdrawn() {
		fmt.Fprintf(stdout, "withdrawn by its signer at %s\n", *e.WithdrawnAt)
	}
	fmt.Fprintf(stdout, "link           %s\n", p.Link)
	fmt.Fprintf(stdout, "import page    %s\n", p.Link.ImportPage())
	return exitPublishOK
}

func runWithdraw(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("withdraw", "withdraw --key FILE [--registry URL] CONTENT_HASH",
		`Withdraws a bundle this key published to the skill registry at URL (default
$`+registryEnv+`): signs a withdrawal of CONTENT_HASH for that registry and posts it. The
registry marks the bundle "withdrawn by its signer"; its bytes stay at their link. Only
the key that signed the published bundle can withdraw it. Exit status: 0 withdrawn;
1 refused, with the reason; 2 bad usage, an unreadable key or a registry that cannot
be reached.`, stderr)
	keyFile := fs.String("key", "", "the private key `FILE` that signed the published bundle")
	reg := fs.String("registry", os.Getenv(registryEnv), "the registry's `URL` (its workbench's origin)")
	if code, done := parseFlags(fs, args, exitPublishOK, exitPublishUsage); done {
		return code
	}
	if *keyFile == "" || fs.NArg() != 1 {
		fs.Usage()
		return exitPublishUsage
	}
	hash := fs.Arg(0)
	if !registry.ValidHash(hash) {
		fmt.Fprintf(stderr, "workbench withdraw: %q is not a content hash (sha256: and 64 lowercase hex digits)\n", hash)
		return exitPublishUsage
	}
	signer, c, code := registrySetup("withdraw", *keyFile, *reg, stderr)
	if signer == nil {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	e, err := newFlows(nil, nil, nil, false).Withdraw(ctx, c, signer, hash)
	if err != nil {
		return registryFailed("withdraw", hash, err, stderr)
	}
	fmt.Fprintf(stdout, "withdrawn %q v%d (%s) from %s at %s\n", e.Name, e.Version, e.ContentHash, c.Registry, *e.WithdrawnAt)
	return exitPublishOK
}

// registrySetup reads the key and makes the registry's client; a nil
// signer means it failed, with the exit status to return.
func registrySetup(cmd, keyFile, reg string, stderr io.Writer) (signature.Signer, *registry.Client, int) {
	if reg == "" {
		fmt.Fprintf(stderr, "workbench %s: no registry: give --registry URL or set %s\n", cmd, registryEnv)
		return nil, nil, exitPublishUsage
	}
	keyData, err := os.ReadFile(keyFile)
	if err != nil {
		fmt.Fprintf(stderr, "workbench %s: --key: %v\n", cmd, err)
		return nil, nil, exitPublishUsage
	}
	key, err := signature.ParseKey(keyData)
	if err != nil {
		fmt.Fprintf(stderr, "workbench %s: --key %s: %v\n", cmd, keyFile, err)
		return nil, nil, exitPublishUsage
	}
	c, err := registry.NewClient(reg, registryHTTPClient())
	if err != nil {
		fmt.Fprintf(stderr, "workbench %s: --registry: %v\n", cmd, err)
		return nil, nil, exitPublishUsage
	}
	return signature.KeySigner{Key: key}, c, exitPublishOK
}

// registryHTTPClient connects within connectTimeout; the command's
// context bounds the rest.
func registryHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		TLSHandshakeTimeout: connectTimeout,
	}}
}

// registryFailed prints why cmd failed for what and returns its status: a
// refusal (here or by the registry) with each problem on a line, or
// another failure.
func registryFailed(cmd, what string, err error, stderr io.Writer) int {
	var ref *registry.Refusal
	var ae *registry.APIError
	var problems []registry.Problem
	code := exitPublishRefused
	switch {
	case errors.As(err, &ref):
		fmt.Fprintf(stderr, "%s: not %s: %s (checked here, as the registry checks; nothing was sent)\n", what, past(cmd), ref.Message)
		problems = ref.Problems
	case errors.As(err, &ae) && ae.Status < 500 && ae.Status != http.StatusTooManyRequests && ae.Code != "not_a_registry":
		fmt.Fprintf(stderr, "%s: not %s: %s\n", what, past(cmd), ae)
		problems = ae.Problems
	default:
		fmt.Fprintf(stderr, "workbench %s: %s: %v\n", cmd, what, err)
		code = exitPublishUsage
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "  %s\n", p)
	}
	return code
}

func past(cmd string) string {
	if cmd == "publish" {
		return "published"
	}
	return "withdrawn"
}
