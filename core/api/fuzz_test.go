package api

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzServerLine feeds arbitrary lines to the request parser and
// dispatcher over a real Runner. Every non-blank line must get exactly one
// well-formed JSON-RPC response line: valid UTF-8 with no newline, version
// 2.0, an id (echoed when the request had a valid one), and either a
// result or an error with a known code. Seeds live in
// testdata/fuzz/FuzzServerLine.
func FuzzServerLine(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"hello"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"submit","params":{"id":"c1","kind":"thread.create","newThread":"t1","provider":"builtin"}}`))
	s := NewServer(startRunner(f), HostInfo{PID: 1, Version: "fuzz"})
	known := map[int]bool{CodeParse: true, CodeInvalidRequest: true, CodeMethodNotFound: true,
		CodeInvalidParams: true, CodeServer: true}
	f.Fuzz(func(t *testing.T, line []byte) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, sub := s.call(ctx, line)
		if sub != nil {
			sub.cancel()
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if out != nil {
				t.Fatalf("blank line answered with %s", out)
			}
			return
		}
		if !utf8.Valid(out) || bytes.IndexByte(out, '\n') >= 0 {
			t.Fatalf("response is not one UTF-8 line: %q", out)
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   *wireError      `json:"error"`
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("response is not JSON: %v: %s", err, out)
		}
		var keys map[string]json.RawMessage
		json.Unmarshal(out, &keys)
		if _, ok := keys["id"]; resp.JSONRPC != "2.0" || !ok {
			t.Fatalf("response lacks jsonrpc 2.0 or an id: %s", out)
		}
		if (resp.Error == nil) == (resp.Result == nil) {
			t.Fatalf("response must have exactly one of result and error: %s", out)
		}
		if e := resp.Error; e != nil {
			if !known[e.Code] || e.Message == "" {
				t.Fatalf("error with unknown code or no message: %s", out)
			}
			if e.Code == CodeInvalidParams && (e.Data == nil || e.Data.Kind != "input") {
				t.Fatalf("invalid params without data.kind input: %s", out)
			}
		}
		if id := requestID(line); id != nil && string(resp.ID) != "null" && !jsonEqual(resp.ID, id) {
			t.Fatalf("response id %s, request id %s", resp.ID, id)
		}
		if resp.Error == nil && requestID(line) == nil {
			t.Fatalf("a request without a valid id got a result: %s", out)
		}
	})
}

// jsonEqual compares two JSON values as compacted text: ids are echoed
// verbatim, so no number is reinterpreted.
func jsonEqual(a, b []byte) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}
