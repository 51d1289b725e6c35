package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// echoServer answers every request with status and a body that quotes
// the credentials it was sent, as a careless proxy does.
func echoServer(t *testing.T, status int, body func(r *http.Request) string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		fmt.Fprint(w, body(r))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func clientsFor(srv *httptest.Server) map[string]Client {
	return map[string]Client{
		"openai":    &OpenAI{Model: "m", BaseURL: srv.URL, Key: testKey, HTTP: srv.Client(), Retry: fastRetry},
		"anthropic": &Anthropic{Model: "m", BaseURL: srv.URL, Key: testKey, MaxTokens: 10, HTTP: srv.Client(), Retry: fastRetry},
	}
}

func complete(c Client) error {
	_, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Text: "x"}}, Tools: Tools}, nil)
	return err
}

// TestErrorBodyKeyIsRedacted: a 401 whose body echoes the key and the
// header values gives an error that keeps the status and the rest of the
// body, says what was redacted, and holds no part of the key.
func TestErrorBodyKeyIsRedacted(t *testing.T) {
	srv := echoServer(t, 401, func(r *http.Request) string {
		return fmt.Sprintf(`{"error":"invalid key %s (authorization %q, x-api-key %q)"}`,
			testKey, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
	})
	for name, c := range clientsFor(srv) {
		err := complete(c)
		if err == nil {
			t.Fatalf("%s: a 401 succeeded", name)
		}
		msg := err.Error()
		if strings.Contains(msg, testKey) || strings.Contains(msg, "SECRET-123") {
			t.Errorf("%s: the error leaks the key: %s", name, msg)
		}
		if !strings.Contains(msg, "HTTP 401") || !strings.Contains(msg, "invalid key "+redactedMark) {
			t.Errorf("%s: error %q does not keep the status and say the key was redacted", name, msg)
		}
	}
}

// TestErrorBodyKeyAtTheCutIsRedacted: a key that straddles the end of
// the quoted part of the body is redacted whole, not cut in two.
func TestErrorBodyKeyAtTheCutIsRedacted(t *testing.T) {
	for _, at := range []int{maxErrorBody - 5, maxErrorBody - len(testKey), maxErrorBody, maxErrorBody + 1} {
		srv := echoServer(t, 400, func(*http.Request) string {
			return strings.Repeat("x", at) + testKey + strings.Repeat("y", 100)
		})
		for name, c := range clientsFor(srv) {
			msg := complete(c).Error()
			for i := 1; i <= len(testKey); i++ {
				if strings.HasSuffix(msg, testKey[:i]) {
					t.Errorf("%s, key at %d: the error ends with part of the key: ...%s", name, at, msg[max(0, len(msg)-40):])
				}
			}
			if strings.Contains(msg, testKey[:6]) {
				t.Errorf("%s, key at %d: the error leaks the key", name, at)
			}
		}
	}
}

// TestStreamErrorKeyIsRedacted: an error event in the stream that quotes
// the key is redacted too.
func TestStreamErrorKeyIsRedacted(t *testing.T) {
	srv := echoServer(t, 200, func(*http.Request) string {
		return "event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"key " + testKey + " is revoked\"}}\n\n"
	})
	c := &Anthropic{Model: "m", BaseURL: srv.URL, Key: testKey, MaxTokens: 10, HTTP: srv.Client(), Retry: fastRetry}
	err := complete(c)
	if err == nil || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "key "+redactedMark+" is revoked") {
		t.Fatalf("stream error = %v, want the key redacted", err)
	}
}

func TestRedactor(t *testing.T) {
	r := redactorOf(http.Header{"Authorization": {"Bearer k3y-v4lue"}, "X-Api-Key": {"other"}, "Accept": {"text/plain"}})
	if got := r.text("a Bearer k3y-v4lue b k3y-v4lue c other d text/plain"); got != "a [API key redacted] b [API key redacted] c [API key redacted] d text/plain" {
		t.Errorf("text = %q", got)
	}
	if got := r.prefix("0123456k3y-v4lue89", 9); got != "0123456[API key redacted]" {
		t.Errorf("prefix across the cut = %q", got)
	}
	if got := r.prefix("0123456789k3y-v4lue", 9); got != "012345678" {
		t.Errorf("prefix before the key = %q", got)
	}
	if (redactor{}).text("abc") != "abc" || (redactor{}).longest() != 0 {
		t.Error("a redactor without secrets changes text")
	}
	err := r.err(fmt.Errorf("call with k3y-v4lue: %w", context.Canceled))
	if strings.Contains(err.Error(), "k3y-v4lue") || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; errors.Is canceled %v", err, errors.Is(err, context.Canceled))
	}
	var he *httpError
	if errors.As(r.err(&httpError{provider: "p", body: "k3y-v4lue"}), &he) {
		t.Error("the original error, with the key in it, is reachable through errors.As")
	}
}
