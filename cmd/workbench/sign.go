package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"workbench/pkg/signature"
)

// Exit statuses of workbench keygen and sign.
const (
	exitSignOK   = 0 // the key was made, or every bundle was signed
	exitSignFail = 2 // the command line is wrong, a file cannot be read or written, or a bundle cannot be signed
)

// pinSuffix names the pin set keygen writes beside a key file.
const pinSuffix = ".pub.json"

func runKeygen(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("keygen", "keygen --out FILE [--name NAME]",
		`Creates an Ed25519 signing key: FILE holds the private key (PEM, PKCS #8, mode 0600)
and FILE`+pinSuffix+` a pin set holding just its public key, ready for verify --trust.
Prints the public key and its key id; the private key is never printed.`, stderr)
	out := fs.String("out", "", "the private key `FILE` to create (mode 0600; never overwritten)")
	name := fs.String("name", "", "the signer's name in the pin set (default: the key file's name without its extension)")
	if code, done := parseFlags(fs, args, exitSignOK, exitSignFail); done {
		return code
	}
	if *out == "" || fs.NArg() != 0 {
		fs.Usage()
		return exitSignFail
	}
	if *name == "" {
		*name = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
	}
	pinFile := *out + pinSuffix
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		fmt.Fprintf(stderr, "workbench keygen: %v\n", err)
		return exitSignFail
	}
	keyPEM, err := signature.MarshalKey(priv)
	if err != nil {
		fmt.Fprintf(stderr, "workbench keygen: %v\n", err)
		return exitSignFail
	}
	pins, err := json.MarshalIndent(signature.PinSet{Signers: []signature.Pin{signature.NewPin(*name, pub)}}, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "workbench keygen: %v\n", err)
		return exitSignFail
	}
	// Neither file may exist: a key is never replaced by accident, and a
	// pin set is never left beside a key it does not belong to.
	for _, f := range []string{*out, pinFile} {
		if _, err := os.Lstat(f); err == nil {
			fmt.Fprintf(stderr, "workbench keygen: %s already exists; not overwritten\n", f)
			return exitSignFail
		}
	}
	if err := writeNew(*out, keyPEM, 0o600); err != nil {
		fmt.Fprintf(stderr, "workbench keygen: %v\n", err)
		return exitSignFail
	}
	if err := writeNew(pinFile, append(pins, '\n'), 0o644); err != nil {
		os.Remove(*out)
		fmt.Fprintf(stderr, "workbench keygen: %v\n", err)
		return exitSignFail
	}
	fmt.Fprintf(stdout, "private key  %s (mode 0600)\n", *out)
	fmt.Fprintf(stdout, "public key   %s\n", signature.EncodeKey(pub))
	fmt.Fprintf(stdout, "key id       %s\n", signature.KeyID(pub))
	fmt.Fprintf(stdout, "pin set      %s (signer %q)\n", pinFile, *name)
	return exitSignOK
}

// writeNew creates name with perm, failing if it exists, and writes data.
// The mode is set at creation, so the file is never readable by others,
// even for a moment.
func writeNew(name string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

func runSign(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("sign", "sign --key FILE [--out FILE] BUNDLE...",
		`Signs each bundle's content_hash with the Ed25519 key and writes the signature object into
its signature member, in place or to --out. A bundle whose content_hash is not the hash
of its content is not signed. Exit status: 0 every bundle signed; 2 otherwise.`, stderr)
	keyFile := fs.String("key", "", "the private key `FILE` keygen made")
	out := fs.String("out", "", "write the signed bundle to `FILE` instead of in place (one bundle only)")
	if code, done := parseFlags(fs, args, exitSignOK, exitSignFail); done {
		return code
	}
	if *keyFile == "" || fs.NArg() == 0 {
		fs.Usage()
		return exitSignFail
	}
	if *out != "" && fs.NArg() != 1 {
		fmt.Fprintf(stderr, "workbench sign: --out takes one bundle, not %d\n", fs.NArg())
		return exitSignFail
	}
	keyData, err := os.ReadFile(*keyFile)
	if err != nil {
		fmt.Fprintf(stderr, "workbench sign: --key: %v\n", err)
		return exitSignFail
	}
	key, err := signature.ParseKey(keyData)
	if err != nil {
		fmt.Fprintf(stderr, "workbench sign: --key %s: %v\n", *keyFile, err)
		return exitSignFail
	}
	signer := signature.KeySigner{Key: key}
	code := exitSignOK
	for _, name := range fs.Args() {
		dst := name
		if *out != "" {
			dst = *out
		}
		if err := signFile(ctx, signer, name, dst); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			code = exitSignFail
			continue
		}
		fmt.Fprintf(stdout, "%s: signed by key %s\n", dst, signature.KeyID(signer.Public()))
	}
	return code
}

// signFile signs the bundle in src and writes it to dst, replacing dst
// through a temporary file in its directory so that a failure leaves it
// as it was.
func signFile(ctx context.Context, s signature.Signer, src, dst string) error {
	if src == "-" {
		return errors.New("sign reads bundle files, not standard input")
	}
	data, err := readInput(src, nil)
	if err != nil {
		return err
	}
	signed, err := signature.Sign(ctx, s, data)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return fmt.Errorf("cannot write: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(signed); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("cannot write: %w", err)
	}
	return nil
}
