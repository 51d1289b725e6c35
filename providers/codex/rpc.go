package codex

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
)

// errMethodNotFound is JSON-RPC's "method not found": the installed Codex
// does not know a method nexus uses.
const errMethodNotFound = -32601

// msg is one app-server frame: a request (ID and Method), a response (ID
// and Result or Error) or a notification (Method only). The app-server
// omits the "jsonrpc" field and so does nexus.
type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// decodeFrame decodes one line of the app-server's stdout; ok is false
// for anything that is not a JSON-RPC message (not JSON, or JSON with
// neither a method nor an id).
func decodeFrame(line []byte) (m msg, ok bool) {
	if err := json.Unmarshal(line, &m); err != nil || (m.Method == "" && m.ID == nil) {
		return msg{}, false
	}
	return m, true
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// lineWriter is where frames to the app-server go: the process's stdin
// (*agentproc.Proc), or a recorder in tests.
type lineWriter interface {
	WriteLine(b []byte) error
}

// rpc tracks our requests to the app-server and their responses.
type rpc struct {
	w       lineWriter
	mu      sync.Mutex
	next    int
	pending map[string]chan msg
}

// newRPC tracks the calls written to w.
func newRPC(w lineWriter) *rpc { return &rpc{w: w, pending: map[string]chan msg{}} }

// call sends a request; the channel gets its response, or is closed if the
// process ends first.
func (r *rpc) call(method string, params any) <-chan msg {
	r.mu.Lock()
	r.next++
	n := r.next
	id := strconv.Itoa(n)
	ch := make(chan msg, 1)
	r.pending[id] = ch
	r.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"id": n, "method": method, "params": params})
	if err := r.w.WriteLine(b); err != nil {
		r.mu.Lock()
		delete(r.pending, id)
		r.mu.Unlock()
		ch <- msg{Error: &rpcError{Code: -1, Message: err.Error()}}
	}
	return ch
}

func (r *rpc) notify(method string, params any) error {
	m := map[string]any{"method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return r.w.WriteLine(b)
}

// reply answers a server request.
func (r *rpc) reply(id json.RawMessage, result any) error {
	b, _ := json.Marshal(map[string]any{"id": id, "result": result})
	return r.w.WriteLine(b)
}

func (r *rpc) replyError(id json.RawMessage, code int, text string) error {
	b, _ := json.Marshal(map[string]any{"id": id, "error": map[string]any{"code": code, "message": text}})
	return r.w.WriteLine(b)
}

// deliver routes a response to its caller; false if nobody waits for it.
func (r *rpc) deliver(m msg) bool {
	id := idString(m.ID)
	r.mu.Lock()
	ch := r.pending[id]
	delete(r.pending, id)
	r.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- m
	return true
}

// closeAll ends every pending call: the process is gone.
func (r *rpc) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, ch := range r.pending {
		close(ch)
		delete(r.pending, id)
	}
}

// idString is a request id as text, whether it came as a number or a string.
func idString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
