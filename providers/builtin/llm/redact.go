package llm

import (
	"errors"
	"net/http"
	"slices"
	"strings"
)

// redactedMark replaces a credential in text that leaves a client.
const redactedMark = "[API key redacted]"

// credentialHeaders carry the API key in the requests the clients send.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "Api-Key"}

// redactor hides the credentials of one request in the text of its
// errors: a proxy or a misbehaving server that echoes the key in an
// error body must not put it in the journal, a log or the screen.
//
// Invariant: secrets are non-empty, longest first, so a header value
// ("Bearer KEY") is replaced whole before the key inside it.
type redactor struct{ secrets []string }

// redactorOf collects the credential header values of hdr and, for
// "Scheme VALUE", the VALUE alone.
func redactorOf(hdr http.Header) redactor {
	var r redactor
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	for _, h := range credentialHeaders {
		for _, v := range hdr.Values(h) {
			add(v)
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				add(cred)
			}
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// longest is the length of the longest secret, 0 without any.
func (r redactor) longest() int {
	if len(r.secrets) == 0 {
		return 0
	}
	return len(r.secrets[0])
}

// text replaces every secret in s.
func (r redactor) text(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redactedMark)
	}
	return s
}

// prefix is about the first n bytes of s with its secrets replaced. It
// cuts after a secret that straddles byte n rather than inside it, so
// no part of a secret survives the cut; s should hold longest() bytes
// more than n.
func (r redactor) prefix(s string, n int) string {
	if len(s) <= n {
		return r.text(s)
	}
	end := n
	for _, sec := range r.secrets {
		for i := max(0, n-len(sec)+1); i < n; i++ {
			if strings.HasPrefix(s[i:], sec) {
				end = max(end, i+len(sec))
			}
		}
	}
	return r.text(s[:end])
}

// err returns err with its secrets replaced. An error whose text holds
// none is returned as is; otherwise the result keeps only the redacted
// text (errors.As cannot reach the original and its fields), and
// errors.Is still answers for the original, so context.Canceled stays
// recognisable.
func (r redactor) err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := r.text(msg); red != msg {
		return &redactedError{msg: red, orig: err}
	}
	return err
}

type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string { return e.msg }

func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }
