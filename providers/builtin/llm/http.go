package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry bounds the retries of 429 and 5xx answers.
type Retry struct {
	Max  int           // retries after the first try (default 4)
	Base time.Duration // first backoff, doubled each time (default 500ms)
	Cap  time.Duration // longest wait, Retry-After included (default 20s)
}

func (r Retry) withDefaults() Retry {
	if r.Max == 0 {
		r.Max = 4
	}
	if r.Base == 0 {
		r.Base = 500 * time.Millisecond
	}
	if r.Cap == 0 {
		r.Cap = 20 * time.Second
	}
	return r
}

// maxErrorBody is how much of an error answer's body an error quotes.
const maxErrorBody = 512

// httpError is a non-2xx answer. Its message carries the status and the
// start of the body with the request's credentials redacted (a proxy may
// echo them), never the request (which holds no key anyway: keys travel
// in headers).
type httpError struct {
	provider string
	status   int
	body     string
	after    time.Duration
}

func (e *httpError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.provider, e.status, e.body)
}

func retryable(status int) bool { return status == 429 || status >= 500 }

// post sends a JSON request and returns the streaming body, retrying 429
// and 5xx answers (and connection failures) with backoff, up to the bound.
// Its errors never hold the credentials of hdr.
func post(ctx context.Context, c *http.Client, provider, url string, hdr http.Header, body any, rt Retry) (io.ReadCloser, error) {
	red := redactorOf(hdr)
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	rt = rt.withDefaults()
	var last error
	for attempt := 0; attempt <= rt.Max; attempt++ {
		if attempt > 0 {
			wait := rt.Base << (attempt - 1)
			var he *httpError
			if errors.As(last, &he) && he.after > 0 {
				wait = he.after
			}
			wait = min(wait, rt.Cap)
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header = hdr.Clone()
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := c.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			last = red.err(fmt.Errorf("%s: %w", provider, scrubURL(err)))
			continue
		}
		if resp.StatusCode/100 == 2 {
			return resp.Body, nil
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, int64(maxErrorBody+red.longest())))
		resp.Body.Close()
		he := &httpError{provider: provider, status: resp.StatusCode, body: strings.TrimSpace(red.prefix(string(b), maxErrorBody))}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			he.after = time.Duration(s) * time.Second
		}
		if !retryable(resp.StatusCode) {
			return nil, he
		}
		last = he
	}
	return nil, fmt.Errorf("%w; gave up after %d tries: wait and try again", last, rt.Max+1)
}

// scrubURL drops the URL from transport errors; it can hold a query key.
func scrubURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && strings.Contains(err.Error(), "://") {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// sse reads Server-Sent Events: fn gets each event name and data.
func sse(r io.Reader, fn func(event, data string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	event, data := "", []string{}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(data) > 0 {
				if err := fn(event, strings.Join(data, "\n")); err != nil {
					return err
				}
			}
			event, data = "", data[:0]
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(line[5:], " "))
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(data) > 0 {
		return fn(event, strings.Join(data, "\n"))
	}
	return nil
}

// schema is the JSON schema of a tool's string parameters.
func schema(t Tool) map[string]any {
	props := map[string]any{}
	var req []string
	for _, p := range t.Params {
		props[p.Name] = map[string]any{"type": "string", "description": p.Description}
		if p.Required {
			req = append(req, p.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(req) > 0 {
		s["required"] = req
	}
	return s
}

// argsOf decodes tool arguments, keeping string values (others as JSON).
func argsOf(raw string) (map[string]string, error) {
	if strings.TrimSpace(raw) == "" {
		return map[string]string{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("tool arguments are not a JSON object: %w", err)
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out, nil
}

// prices are USD per million input and output tokens, by model prefix.
var prices = []struct {
	prefix  string
	in, out float64
}{
	{"gpt-4o-mini", 0.15, 0.60}, {"gpt-4o", 2.50, 10}, {"gpt-4.1-nano", 0.10, 0.40},
	{"gpt-4.1-mini", 0.40, 1.60}, {"gpt-4.1", 2, 8}, {"o4-mini", 1.10, 4.40},
	{"claude-3-5-haiku", 0.80, 4}, {"claude-haiku", 1, 5}, {"claude-sonnet", 3, 15},
	{"claude-3-7-sonnet", 3, 15}, {"claude-opus", 15, 75},
}

// Priced reports whether Cost knows the model's price.
func Priced(model string) bool {
	for _, p := range prices {
		if strings.HasPrefix(model, p.prefix) {
			return true
		}
	}
	return false
}

// Cost prices a call; an unknown model costs 0 (the token counts remain,
// and Priced says the cost is unknown).
func Cost(model string, in, out int) float64 {
	for _, p := range prices {
		if strings.HasPrefix(model, p.prefix) {
			return (float64(in)*p.in + float64(out)*p.out) / 1e6
		}
	}
	return 0
}
