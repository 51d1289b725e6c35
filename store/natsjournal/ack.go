package natsjournal

import (
	"encoding/json"
	"fmt"
)

// Server error codes Append tells apart (nats-server's ErrorIdentifier).
const (
	errCodeWrongLastSeq   = 10071 // JSStreamWrongLastSequenceErr: the compare-and-swap failed
	errCodeBatchDuplicate = 10201 // JSAtomicPublishContainsDuplicateMessageErr
)

// pubAck is the server's answer to a publish: a plain JetStream
// acknowledgement, with the batch id and size for an atomic batch.
type pubAck struct {
	Stream    string       `json:"stream"`
	Seq       uint64       `json:"seq"`
	Duplicate bool         `json:"duplicate,omitempty"`
	Batch     string       `json:"batch,omitempty"`
	Count     int          `json:"count,omitempty"`
	Error     *serverError `json:"error,omitempty"`
}

// serverError is an error the server answered with: nothing of the
// publish it answers was stored.
type serverError struct {
	Code        int    `json:"code"`
	ErrCode     int    `json:"err_code"`
	Description string `json:"description"`
}

func (e *serverError) Error() string {
	return fmt.Sprintf("the server refused it: %s (error %d)", e.Description, e.ErrCode)
}

// sendError is a publish that never reached a stream: nothing was stored.
type sendError struct{ err error }

func (e *sendError) Error() string { return e.err.Error() }
func (e *sendError) Unwrap() error { return e.err }

// unknownOutcome is a publish the server may or may not have stored: no
// answer came (a timeout, a lost connection) or it made no sense.
type unknownOutcome struct{ err error }

func (e *unknownOutcome) Error() string {
	return fmt.Sprintf("no usable acknowledgement: %v", e.err)
}
func (e *unknownOutcome) Unwrap() error { return e.err }

// parseAck reads an acknowledgement.
func parseAck(data []byte) (*pubAck, error) {
	var a pubAck
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, &unknownOutcome{fmt.Errorf("the acknowledgement %.80q is not JSON: %w", data, err)}
	}
	if a.Error != nil {
		return nil, a.Error
	}
	if a.Stream == "" {
		return nil, &unknownOutcome{fmt.Errorf("the acknowledgement %.80q names no stream", data)}
	}
	return &a, nil
}
