package capability

import (
	"context"

	"workbench/pkg/runs"
)

// Backend is everything the capability palette asks of where
// capabilities live: the catalog, descriptors, preflight, the governed
// invoke, the approvals surface and the runs. Local serves it from this
// process (the Governor); package capability/httpapi's Client serves it
// from a backend that speaks the HTTP contract of the capability
// workbench document. The UI holds a Backend and does not know which.
//
// Every method may do I/O: a browser UI calls them from a goroutine and
// dispatches the answer back to its own.
type Backend interface {
	// Catalog lists every source's capabilities; a source that failed is
	// in Listing.Failures. An error means the catalog itself could not be
	// read.
	Catalog(ctx context.Context) (Listing, error)
	Describe(ctx context.Context, id string) (Capability, error)
	Preflight(ctx context.Context, p Proposal) (Preview, error)
	Invoke(ctx context.Context, p Proposal) (Receipt, error)
	// Approvals lists the approvals newest first.
	Approvals(ctx context.Context) ([]Approval, error)
	Grant(ctx context.Context, approvalID string) (Approval, error)
	Deny(ctx context.Context, approvalID string) (Approval, error)
	runs.Source
}

// FileSource is a Backend that hands over the files its actions made
// (Result.File): a run's tool_result event names the file, and File
// returns it. Local is one; the document's HTTP contract has no such
// route, so an HTTP backend is not.
type FileSource interface {
	File(ctx context.Context, run runs.RunID) (File, error)
}

// Local is the Backend of a Governor in this process.
type Local struct {
	*Governor
}

var (
	_ Backend    = Local{}
	_ FileSource = Local{}
)

// Catalog lists the governed catalog.
func (l Local) Catalog(ctx context.Context) (Listing, error) {
	if err := ctx.Err(); err != nil {
		return Listing{}, err
	}
	return l.catalog.List(ctx), nil
}

// Describe refreshes one descriptor.
func (l Local) Describe(ctx context.Context, id string) (Capability, error) {
	return l.catalog.Describe(ctx, id)
}

// Approvals lists every approval, newest first.
func (l Local) Approvals(ctx context.Context) ([]Approval, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.Governor.Approvals(), nil
}

// Grant approves a pending approval.
func (l Local) Grant(ctx context.Context, id string) (Approval, error) { return l.Governor.Grant(id) }

// Deny refuses a pending approval.
func (l Local) Deny(ctx context.Context, id string) (Approval, error) { return l.Governor.Deny(id) }

// Runs lists the runs newest first.
func (l Local) Runs(ctx context.Context, session runs.SessionID) ([]runs.Run, error) {
	return l.log.Runs(ctx, session)
}

// Events returns a page of a run's events.
func (l Local) Events(ctx context.Context, run runs.RunID, after int64, limit int) (runs.Page, error) {
	return l.log.Events(ctx, run, after, limit)
}

// Follow follows a run live.
func (l Local) Follow(ctx context.Context, run runs.RunID, after int64) (runs.Stream, error) {
	return l.log.Follow(ctx, run, after)
}
