package verify

import "workbench/pkg/redact"

// exported is what the export flow knows about bytes it is about to save,
// and gate.redaction_verify checks them against: the name of the file,
// and the secrets of the bundle before it was redacted.
type exported struct {
	name  string
	known *redact.Known
}

// Export verifies bundle bytes about to be saved under the file name name,
// as Bytes does, with gate.redaction_verify checking under transcript_pii
// or full that name holds no secret, e-mail address or password value, and
// that neither name nor any string of data holds a run of
// redact.MinFragment or more characters of a secret in known — the secrets
// of the bundle before it was redacted (redact.Detector.Known), which the
// bytes alone can no longer show. known may be nil.
func (v *Verifier) Export(data []byte, name string, known *redact.Known) (*Report, error) {
	r, _, err := v.read(data, &exported{name: name, known: known})
	return r, err
}
