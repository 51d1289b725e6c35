package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	path := os.Getenv("SCRIPTED_FILE")
	for _, a := range os.Args[1:] {
		if !strings.HasPrefix(a, "-") && path == "" {
			path = a
		}
	}
	script, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scripted: no script:", err)
		os.Exit(2)
	}
	var logf *os.File
	if p := os.Getenv("SCRIPTED_LOG"); p != "" {
		logf, _ = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	logLine := func(s string) {
		if logf != nil {
			fmt.Fprintln(logf, s)
		}
	}
	fail := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		logLine("FAIL " + msg)
		fmt.Fprintln(os.Stderr, "scripted: "+msg)
		os.Exit(2)
	}
	logLine("args " + strings.Join(os.Args[1:], " "))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<16), 64<<20)
	vars := map[string]string{}
	vars["cwd"], _ = os.Getwd()
	var last any
	for n, line := range strings.Split(string(script), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch verb {
		case "expect":
			var want any
			for k, v := range vars {
				arg = strings.ReplaceAll(arg, "$"+k, v)
			}
			if err := json.Unmarshal([]byte(arg), &want); err != nil {
				fail("line %d: bad expect JSON: %v", n+1, err)
			}
			if !in.Scan() {
				fail("line %d: stdin closed, expected %s", n+1, arg)
			}
			logLine("recv " + in.Text())
			var got any
			if err := json.Unmarshal(in.Bytes(), &got); err != nil {
				fail("line %d: nexus sent a frame that is not JSON: %q", n+1, in.Text())
			}
			if !match(want, got) {
				fail("line %d: expected %s, got %s", n+1, arg, in.Text())
			}
			last = got
		case "capture":
			name, p, _ := strings.Cut(arg, " ")
			v := lookup(last, p)
			if v == nil {
				fail("line %d: nothing at %s in the last frame", n+1, p)
			}
			switch x := v.(type) {
			case string:
				vars[name] = x
			default:
				b, _ := json.Marshal(x)
				vars[name] = string(b)
			}
		case "send":
			out := arg
			for k, v := range vars {
				out = strings.ReplaceAll(out, "$"+k, v)
			}
			fmt.Println(out)
		case "raw":
			fmt.Println(arg)
		case "stderr":
			fmt.Fprintln(os.Stderr, arg)
		case "sleep":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "exit":
			code, _ := strconv.Atoi(arg)
			logLine("exit " + arg)
			os.Exit(code)
		case "ignore-term":
			signal.Ignore(syscall.SIGTERM)
		case "hang":
			logLine("hang")
			for in.Scan() {
				logLine("recv " + in.Text())
			}
			os.Exit(0)
		case "eof":
			for in.Scan() {
				logLine("recv " + in.Text())
				fail("line %d: expected stdin to close, got %s", n+1, in.Text())
			}
			logLine("ok")
			os.Exit(0)
		default:
			fail("line %d: unknown step %q", n+1, verb)
		}
	}
	logLine("ok")
	// Stay alive until nexus closes stdin, as an agent would; any frame
	// nexus still sends is logged and fails the script.
	for in.Scan() {
		logLine("recv " + in.Text())
		fail("unexpected frame after the end of the script: %s", in.Text())
	}
}

// match reports whether got contains want: objects as subsets, arrays
// element by element with the same length, other values equal.
func match(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			gv, ok := g[k]
			if !ok || !match(v, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !match(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

func lookup(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}
