package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// parseRequest checks that line is one JSON-RPC 2.0 request this server
// takes. On error the returned request carries the id to answer with when
// one could be read (null otherwise).
func parseRequest(line []byte) (request, *wireError) {
	if !utf8.Valid(line) {
		// encoding/json would turn invalid bytes into U+FFFD silently;
		// the edge refuses them instead (docs/ARCHITECTURE.md,
		// "Commands and events").
		return request{}, &wireError{Code: CodeParse, Message: "parse error: the line is not valid UTF-8"}
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return request{}, &wireError{Code: CodeParse, Message: "parse error: " + err.Error()}
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' {
			return request{}, &wireError{Code: CodeInvalidRequest, Message: "invalid request: batches are not supported; send one request per line"}
		}
		return request{}, &wireError{Code: CodeInvalidRequest, Message: "invalid request: " + err.Error()}
	}
	if !validID(req.ID) {
		id := req.ID
		req.ID = nil
		if len(id) == 0 || string(id) == "null" {
			return req, &wireError{Code: CodeInvalidRequest,
				Message: "invalid request: an id (number or string) is required; notifications are not accepted"}
		}
		return req, &wireError{Code: CodeInvalidRequest, Message: "invalid request: id must be a number or a string"}
	}
	if req.JSONRPC != "2.0" {
		return req, &wireError{Code: CodeInvalidRequest, Message: fmt.Sprintf(`invalid request: jsonrpc must be "2.0", not %.20q`, req.JSONRPC)}
	}
	if req.Method == "" {
		return req, &wireError{Code: CodeInvalidRequest, Message: "invalid request: method is missing"}
	}
	return req, nil
}

// validID reports whether a raw id is a JSON number or string. Raw values
// come from a successful Unmarshal, so the first byte tells the type.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// requestID returns the id of a request line, or nil if it has no valid id.
func requestID(line []byte) json.RawMessage {
	var r struct {
		ID json.RawMessage `json:"id"`
	}
	if !utf8.Valid(line) || json.Unmarshal(line, &r) != nil || !validID(r.ID) {
		return nil
	}
	return r.ID
}
