package workers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// serveLines runs an in-process worker over input and returns its output
// frames, checking each is a well-formed JSON-RPC line. With want > 0 it
// keeps the input open until want frames came (the worker cancels
// running steps when its input ends), else it ends the input at once.
func serveLines(t testing.TB, ws string, key []byte, input string, want int) []*Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, inR, outW, Config{Workspace: ws, Key: key})
		outW.Close()
	}()
	go func() {
		io.WriteString(inW, input)
		if want <= 0 {
			inW.Close()
		}
	}()
	var frames []*Frame
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, MaxFrame+1)
	for sc.Scan() {
		f, perr := ParseFrame(sc.Bytes())
		if perr != nil {
			t.Errorf("worker wrote a bad frame %q: %v", sc.Text(), perr)
			break
		}
		frames = append(frames, f)
		if len(frames) == want {
			inW.Close()
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return frames
}

func TestMalformedFramesGetErrors(t *testing.T) {
	ws := tempWorkspace(t)
	writeFile(t, ws+"/a.txt", "a")
	key, _ := NewKey()
	good := Execute{TaskID: "t", Step: 1, Action: ActionReadFile, Args: Args{Path: "a.txt"},
		Capability: Sign(key, Grant{Task: "t", Step: 1, Action: ActionReadFile, Target: "a.txt", Nonce: NewNonce(), Expiry: time.Now().Add(time.Minute)})}
	goodLine, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "execute", "params": good})
	cases := []struct {
		line string
		code int
		msg  string
	}{
		{`not json`, CodeInvalidRequest, "not a JSON object"},
		{`{"jsonrpc":"2.0","id":1,"method":"execute"`, CodeParseError, "parse error"},
		{`[{"jsonrpc":"2.0"}]`, CodeInvalidRequest, "batches"},
		{`{"id":1,"method":"execute","params":{}}`, CodeInvalidRequest, `"jsonrpc": "2.0"`},
		{`{"jsonrpc":"2.0","id":{},"method":"execute"}`, CodeInvalidRequest, "id must be"},
		{`{"jsonrpc":"2.0","id":2,"method":"frobnicate"}`, CodeMethodNotFound, "unknown method"},
		{`{"jsonrpc":"2.0","id":3,"method":"execute"}`, CodeInvalidParams, "params missing"},
		{`{"jsonrpc":"2.0","id":4,"method":"execute","params":{"task_id":"t","step":1,"action":"read_file","timeout":5}}`, CodeInvalidParams, "unknown field"},
		{`{"jsonrpc":"2.0","id":5,"method":"execute","params":{"task_id":"","step":1,"action":"read_file"}}`, CodeInvalidParams, "task_id"},
		{`{"jsonrpc":"2.0","id":6,"method":"execute","params":{"task_id":"t","step":-1,"action":"read_file"}}`, CodeInvalidParams, "step"},
		{`{"jsonrpc":"2.0","id":9,"method":"execute","params":{"task_id":"t","step":1,"action":"read_file","timeout_ms":9223372036854775807}}`,
			CodeInvalidParams, "timeout_ms must be at most 86400000 (24h0m0s)"},
		{`{"jsonrpc":"2.0","method":"execute","params":{"task_id":"t","step":1,"action":"read_file"}}`, CodeInvalidRequest, "with an id"},
		{`{"jsonrpc":"2.0","id":7,"method":"execute","result":{}}`, CodeInvalidRequest, "both"},
		{`{"jsonrpc":"2.0","id":8,"method":"cancel","params":{"reason":"x"}}`, CodeInvalidParams, "task_id is empty"},
	}
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.line + "\n")
	}
	in.WriteString("\n" + string(goodLine) + "\n")
	frames := serveLines(t, ws, key, in.String(), len(cases)+1)
	if len(frames) != len(cases)+1 {
		t.Fatalf("got %d frames for %d bad lines and one good one", len(frames), len(cases))
	}
	for i, c := range cases {
		f := frames[i]
		if f.Error == nil || f.Error.Code != c.code || !strings.Contains(f.Error.Message, c.msg) {
			t.Errorf("%s: got %+v, want code %d containing %q", c.line, f.Error, c.code, c.msg)
		}
	}
	var res Result
	json.Unmarshal(frames[len(cases)].Result, &res)
	if string(frames[len(cases)].ID) != "99" || res.Status != StatusOK || res.Output != "a" {
		t.Fatalf("the good request after bad ones = %s %+v", frames[len(cases)].ID, res)
	}
}

func TestLineReaderSkipsLongLines(t *testing.T) {
	lr := newLineReader(strings.NewReader("short\n"+strings.Repeat("x", 200)+"\nnext\nlast"), 100)
	var got []string
	for {
		line, err := lr.next()
		if errors.Is(err, errLongLine) {
			got = append(got, "<long>")
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	if strings.Join(got, ",") != "short,<long>,next,last" {
		t.Fatalf("lines = %q", got)
	}
}

// FuzzFrame feeds arbitrary bytes to the frame parser and to a whole
// worker: nothing may panic, and every line the worker writes must be a
// well-formed JSON-RPC response. (No input can carry a valid token, so
// the worker never acts on the workspace.)
func FuzzFrame(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"execute","params":{"task_id":"t","step":1,"action":"read_file","args":{"path":"a"},"capability":"v1.e30.AA"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"cancel","params":{"task_id":"t"}}`))
	f.Add([]byte("{}\n\n{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":1}"))
	ws := tempWorkspace(f)
	key, _ := NewKey()
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseFrame(data)
		for _, fr := range serveLines(t, ws, key, string(data), 0) {
			if fr.Method != "" || fr.ID == nil {
				t.Fatalf("worker wrote a non-response frame %+v", fr)
			}
			if fr.Result != nil {
				var res Result
				if err := json.Unmarshal(fr.Result, &res); err != nil {
					t.Fatalf("result does not decode: %v", err)
				}
				if res.Status == StatusOK {
					t.Fatalf("fuzz input made the worker act: %+v", res)
				}
			}
		}
	})
}
