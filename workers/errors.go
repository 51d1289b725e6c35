package workers

import (
	"errors"
	"fmt"
)

// Token errors: Verify wraps exactly one of them, except
// ErrTokenReplayed, which a worker's ledger of accepted tokens returns.
var (
	ErrTokenMissing   = errors.New("workers: capability token missing")
	ErrTokenMalformed = errors.New("workers: capability token malformed")
	ErrTokenForged    = errors.New("workers: capability token forged")
	ErrTokenMismatch  = errors.New("workers: capability token does not match the request")
	ErrTokenExpired   = errors.New("workers: capability token expired")
	ErrTokenLifetime  = errors.New("workers: capability token lives too long")
	ErrTokenReplayed  = errors.New("workers: capability token already used")
)

// Pool errors. When Execute returns an error, the step did not run.
var (
	ErrPoolClosed = errors.New("workers: pool closed")
	ErrBadStep    = errors.New("workers: invalid step")
)

// ErrUsage wraps command-line mistakes of `nexus worker`.
var ErrUsage = errors.New("workers: usage")

// refusal is an error that ends a step with status refused: the worker
// will not act on this request (a token or a path outside the workspace).
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func refusef(format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...)}
}
