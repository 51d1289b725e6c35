package workers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Method names of the worker protocol (see doc.go for the wire).
const (
	MethodExecute    = "execute"    // kernel -> worker, request
	MethodCancel     = "cancel"     // kernel -> worker, notification
	MethodCheckpoint = "checkpoint" // worker -> kernel, notification
)

// Step statuses carried by a Result.
const (
	StatusOK        = "ok"        // the action did what it was asked
	StatusError     = "error"     // it was attempted and failed (or the command exited non-zero)
	StatusRefused   = "refused"   // the worker would not act: token or path confinement
	StatusCancelled = "cancelled" // a cancel notification (or worker shutdown) ended it
	StatusTimeout   = "timeout"   // timeout_ms elapsed
)

// JSON-RPC 2.0 error codes used by the worker.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
)

// MaxFrame is the longest line either side accepts. It leaves room for an
// 8 MiB write_file content with JSON escaping.
const MaxFrame = 32 << 20

// Args are the arguments of every action; each action reads the fields it
// documents and ignores the rest.
type Args struct {
	Path    string `json:"path,omitempty"`
	Content string `json:"content,omitempty"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	Pattern string `json:"pattern,omitempty"`
	Command string `json:"command,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
}

// Execute is the params object of an execute request.
type Execute struct {
	TaskID     string `json:"task_id"`
	Step       int    `json:"step"`
	Action     string `json:"action"`
	Args       Args   `json:"args"`
	Capability string `json:"capability"`
	TimeoutMS  int64  `json:"timeout_ms,omitempty"`
}

// Cancel is the params object of a cancel notification. It ends every
// running step of the task.
type Cancel struct {
	TaskID string `json:"task_id"`
	Reason string `json:"reason,omitempty"`
}

// Artifacts is what a checkpoint reports. Exactly the fields that apply
// are set: PGID once when run_command has started its process group,
// Chunk for each piece of command output in order, Path and Blake3 when a
// file has been written durably, Note for a remark such as truncation.
type Artifacts struct {
	PGID   int    `json:"pgid,omitempty"`
	Chunk  string `json:"chunk,omitempty"`
	Path   string `json:"path,omitempty"`
	Blake3 string `json:"blake3,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Checkpoint is the params object of a checkpoint notification.
type Checkpoint struct {
	TaskID    string    `json:"task_id"`
	Step      int       `json:"step"`
	Artifacts Artifacts `json:"artifacts"`
}

// Metrics are measured by the worker for one step.
type Metrics struct {
	DurationMS int64 `json:"duration_ms"`
	Bytes      int64 `json:"bytes"`
}

// Result is the result object of an execute response: how the step ended.
type Result struct {
	TaskID string `json:"task_id"`
	Step   int    `json:"step"`
	Status string `json:"status"`
	Output string `json:"output"`
	// Encoding is "base64" when read_file met content that is not UTF-8.
	Encoding string `json:"encoding,omitempty"`
	// ExitCode is set by run_command (128+signal when a signal ended it).
	ExitCode *int `json:"exit_code,omitempty"`
	// Path and Blake3 are set by write_file and edit_file: the file
	// written (relative to the workspace) and the BLAKE3 of its content.
	Path      string  `json:"path,omitempty"`
	Blake3    string  `json:"blake3,omitempty"`
	Truncated bool    `json:"truncated,omitempty"`
	Metrics   Metrics `json:"metrics"`
	Error     string  `json:"error,omitempty"`
}

// RPCError is a JSON-RPC 2.0 error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("workers: rpc error %d: %s", e.Code, e.Message) }

// Frame is one decoded line of the protocol, in either direction. A
// request has Method and ID, a notification Method and no ID, a response
// ID and exactly one of Result or Error.
type Frame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// IsNotification reports whether f is a request without an id.
func (f *Frame) IsNotification() bool { return f.Method != "" && f.ID == nil }

// ParseFrame decodes and validates one line. It never panics; a bad line
// yields an *RPCError suitable for a JSON-RPC error response.
func ParseFrame(line []byte) (*Frame, *RPCError) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, &RPCError{CodeInvalidRequest, "empty frame"}
	}
	if len(line) > MaxFrame {
		return nil, &RPCError{CodeInvalidRequest, fmt.Sprintf("frame of %d bytes is over the %d byte limit", len(line), MaxFrame)}
	}
	if line[0] != '{' {
		return nil, &RPCError{CodeInvalidRequest, "frame is not a JSON object (batches are not supported)"}
	}
	var f Frame
	if err := json.Unmarshal(line, &f); err != nil {
		return nil, &RPCError{CodeParseError, "parse error: " + err.Error()}
	}
	if f.JSONRPC != "2.0" {
		return nil, &RPCError{CodeInvalidRequest, `frame lacks "jsonrpc": "2.0"`}
	}
	if f.ID != nil && !validID(f.ID) {
		return nil, &RPCError{CodeInvalidRequest, "id must be a number, a string or null"}
	}
	isCall := f.Method != ""
	isReply := f.Result != nil || f.Error != nil
	switch {
	case isCall && isReply:
		return nil, &RPCError{CodeInvalidRequest, "frame has both a method and a result or error"}
	case !isCall && !isReply:
		return nil, &RPCError{CodeInvalidRequest, "frame has neither a method nor a result or error"}
	case isReply && (f.Result != nil) == (f.Error != nil):
		return nil, &RPCError{CodeInvalidRequest, "response must have exactly one of result and error"}
	case isReply && f.ID == nil:
		return nil, &RPCError{CodeInvalidRequest, "response lacks an id"}
	}
	return &f, nil
}

func validID(id json.RawMessage) bool {
	switch id[0] {
	case '"', 'n':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// lineReader reads newline-terminated frames of at most max bytes. A
// longer line is skipped up to its newline and reported as errLongLine,
// so one bad frame never desynchronizes the stream.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

var errLongLine = errors.New("frame too long")

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its newline. The slice is valid
// until the following call.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(chunk) > lr.max+1 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if err == io.EOF && (len(lr.buf) > 0 || tooLong) {
				break // a last line without a newline still counts
			}
			return nil, err
		}
		break
	}
	if tooLong {
		return nil, errLongLine
	}
	return bytes.TrimSuffix(lr.buf, []byte{'\n'}), nil
}

// frameWriter writes one JSON object per line; safe for concurrent use.
// After the first write error it drops frames (the peer is gone).
type frameWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf bytes.Buffer
	err error
}

func newFrameWriter(w io.Writer) *frameWriter { return &frameWriter{w: bufio.NewWriter(w)} }

type outFrame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

func (fw *frameWriter) write(f outFrame) error {
	f.JSONRPC = "2.0"
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.err != nil {
		return fw.err
	}
	fw.buf.Reset()
	enc := json.NewEncoder(&fw.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil { // Encode appends the newline
		return fmt.Errorf("workers: encode frame: %w", err)
	}
	if _, err := fw.w.Write(fw.buf.Bytes()); err != nil {
		fw.err = err
		return err
	}
	if err := fw.w.Flush(); err != nil {
		fw.err = err
		return err
	}
	return nil
}

var nullID = json.RawMessage("null")
