package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"
)

type msg struct {
	Type    string          `json:"type"` // claude
	ReqID   string          `json:"request_id"`
	Request json.RawMessage `json:"request"`
	ID      json.RawMessage `json:"id"` // JSON-RPC
	Method  string          `json:"method"`
}

type streamer struct {
	proto    string
	n        int
	interval time.Duration
	turns    int
	line     []byte
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: streamer claude|codex|acp [ignored flags]")
		os.Exit(2)
	}
	s := &streamer{proto: os.Args[1], n: 10000}
	if v := os.Getenv("STREAMER_DELTAS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "STREAMER_DELTAS=%q: %v\n", v, err)
			os.Exit(2)
		}
		s.n = n
	}
	if v := os.Getenv("STREAMER_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "STREAMER_INTERVAL=%q: %v\n", v, err)
			os.Exit(2)
		}
		s.interval = d
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m msg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch s.proto {
		case "claude":
			s.claude(m)
		case "codex":
			s.codex(m)
		case "acp":
			s.acp(m)
		default:
			fmt.Fprintf(os.Stderr, "unknown protocol %q\n", s.proto)
			os.Exit(2)
		}
	}
}

// out writes one line in one write(2).
func (s *streamer) out(line string) {
	if _, err := os.Stdout.WriteString(line + "\n"); err != nil {
		os.Exit(1)
	}
}

// stream writes the deltas: prefix + "SEQ:NANOS;" + suffix, each stamped
// just before its write.
func (s *streamer) stream(prefix, suffix string) {
	start := time.Now()
	for i := 0; i < s.n; i++ {
		if s.interval > 0 {
			if d := time.Until(start.Add(time.Duration(i) * s.interval)); d > 0 {
				time.Sleep(d)
			}
		}
		b := append(s.line[:0], prefix...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, time.Now().UnixNano(), 10)
		b = append(b, ';')
		b = append(b, suffix...)
		b = append(b, '\n')
		s.line = b
		if _, err := os.Stdout.Write(b); err != nil {
			os.Exit(1)
		}
	}
}

func (s *streamer) claude(m msg) {
	switch m.Type {
	case "control_request":
		s.out(`{"type":"control_response","response":{"subtype":"success","request_id":` + strconv.Quote(m.ReqID) + `,"response":{}}}`)
	case "user":
		s.turns++
		id := "m" + strconv.Itoa(s.turns)
		ev := `{"type":"stream_event","session_id":"sess-1","parent_tool_use_id":null,"event":`
		s.out(`{"type":"system","subtype":"init","session_id":"sess-1","model":"fake"}`)
		s.out(ev + `{"type":"message_start","message":{"id":"` + id + `"}}}`)
		s.out(ev + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}`)
		s.stream(ev+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`, `"}}}`)
		s.out(ev + `{"type":"content_block_stop","index":0}}`)
		s.out(`{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"sess-1","total_cost_usd":0,"duration_ms":1,"usage":{"input_tokens":1,"output_tokens":1}}`)
	}
}

func (s *streamer) codex(m msg) {
	if m.Method == "" || len(m.ID) == 0 {
		return // a notification (initialized) or an answer
	}
	id := string(m.ID)
	switch m.Method {
	case "initialize":
		s.out(`{"id":` + id + `,"result":{"userAgent":"streamer/0"}}`)
	case "thread/start", "thread/resume":
		s.out(`{"id":` + id + `,"result":{"thread":{"id":"th-1"}}}`)
	case "turn/start":
		s.turns++
		tu := "tu-" + strconv.Itoa(s.turns)
		item := "msg-" + strconv.Itoa(s.turns)
		s.out(`{"id":` + id + `,"result":{"turn":{"id":"` + tu + `","status":"inProgress"}}}`)
		s.out(`{"method":"turn/started","params":{"threadId":"th-1","turn":{"id":"` + tu + `","status":"inProgress"}}}`)
		s.out(`{"method":"item/started","params":{"threadId":"th-1","turnId":"` + tu + `","item":{"type":"agentMessage","id":"` + item + `","text":""}}}`)
		s.stream(`{"method":"item/agentMessage/delta","params":{"threadId":"th-1","turnId":"`+tu+`","itemId":"`+item+`","delta":"`, `"}}`)
		s.out(`{"method":"item/completed","params":{"threadId":"th-1","turnId":"` + tu + `","item":{"type":"agentMessage","id":"` + item + `","text":""}}}`)
		s.out(`{"method":"turn/completed","params":{"threadId":"th-1","turn":{"id":"` + tu + `","status":"completed","error":null}}}`)
	default:
		s.out(`{"id":` + id + `,"result":{}}`)
	}
}

func (s *streamer) acp(m msg) {
	if m.Method == "" || len(m.ID) == 0 {
		return // a notification (session/cancel) or an answer
	}
	id := string(m.ID)
	switch m.Method {
	case "initialize":
		s.out(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":false},"authMethods":[]}}`)
	case "session/new":
		s.out(`{"jsonrpc":"2.0","id":` + id + `,"result":{"sessionId":"s-1"}}`)
	case "session/prompt":
		s.stream(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`, `"}}}}`)
		s.out(`{"jsonrpc":"2.0","id":` + id + `,"result":{"stopReason":"end_turn"}}`)
	default:
		s.out(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
	}
}
