package workers

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// KeySize is the length of a capability key in bytes.
const KeySize = 32

// tokenPrefix names the token format; a new format gets a new prefix.
const tokenPrefix = "v1."

// Grant is what a capability token allows: one action of one step of one
// task on one target (a workspace path, or the command line for
// run_command), until Expiry.
type Grant struct {
	Task   string
	Step   int
	Action string
	Target string
	Expiry time.Time
}

// claims is the readable half of a token. It carries the target's
// SHA-256, not the target, so tokens stay short; the MAC covers exactly
// these fields.
type claims struct {
	Task   string `json:"t"`
	Step   int    `json:"s"`
	Action string `json:"a"`
	Target string `json:"h"` // hex SHA-256 of the target
	Expiry int64  `json:"e"` // unix nanoseconds
}

// NewKey returns a fresh random per-host capability key.
func NewKey() ([]byte, error) {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("workers: new capability key: %w", err)
	}
	return k, nil
}

// Sign returns the capability token for g.
func Sign(key []byte, g Grant) string {
	c := claims{Task: g.Task, Step: g.Step, Action: g.Action, Target: targetHash(g.Target), Expiry: g.Expiry.UnixNano()}
	body, _ := json.Marshal(c) // cannot fail: strings and ints only
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(body) + "." +
		base64.RawURLEncoding.EncodeToString(mac(key, c))
}

// Verify checks token against the grant the worker is about to act on
// (g.Expiry is ignored unless set, when it must match). The error wraps
// one of ErrTokenMissing, ErrTokenMalformed, ErrTokenForged,
// ErrTokenMismatch or ErrTokenExpired and says what was wrong.
func Verify(key []byte, token string, g Grant, now time.Time) error {
	if token == "" {
		return fmt.Errorf("%w: the request carries no capability token", ErrTokenMissing)
	}
	if len(key) == 0 {
		return fmt.Errorf("%w: this worker has no capability key to check tokens with", ErrTokenForged)
	}
	body, sig, ok := strings.Cut(strings.TrimPrefix(token, tokenPrefix), ".")
	if !strings.HasPrefix(token, tokenPrefix) || !ok {
		return fmt.Errorf("%w: token is not of the form v1.CLAIMS.MAC", ErrTokenMalformed)
	}
	rawBody, err1 := base64.RawURLEncoding.DecodeString(body)
	rawSig, err2 := base64.RawURLEncoding.DecodeString(sig)
	var c claims
	if err1 != nil || err2 != nil || json.Unmarshal(rawBody, &c) != nil {
		return fmt.Errorf("%w: token parts do not decode", ErrTokenMalformed)
	}
	if !hmac.Equal(rawSig, mac(key, c)) {
		return fmt.Errorf("%w: its signature does not match this host's key", ErrTokenForged)
	}
	switch {
	case c.Task != g.Task || c.Step != g.Step:
		return fmt.Errorf("%w: token is for task %q step %d, not task %q step %d",
			ErrTokenMismatch, c.Task, c.Step, g.Task, g.Step)
	case c.Action != g.Action:
		return fmt.Errorf("%w: token is for action %s, not %s", ErrTokenMismatch, c.Action, g.Action)
	case c.Target != targetHash(g.Target):
		what := "path"
		if g.Action == ActionRunCommand {
			what = "command"
		}
		return fmt.Errorf("%w: token is for another %s than %q", ErrTokenMismatch, what, g.Target)
	case !g.Expiry.IsZero() && c.Expiry != g.Expiry.UnixNano():
		return fmt.Errorf("%w: token has another expiry than the grant", ErrTokenMismatch)
	}
	exp := time.Unix(0, c.Expiry)
	if !now.Before(exp) {
		return fmt.Errorf("%w: token expired at %s (%s ago)", ErrTokenExpired,
			exp.UTC().Format(time.RFC3339), now.Sub(exp).Round(time.Millisecond))
	}
	return nil
}

// TargetOf is the token target of an action: the path for file actions
// ("." when list_dir or search name none) and the command line for
// run_command. The pool and the worker both use it, so they agree.
func TargetOf(action string, a Args) string {
	switch action {
	case ActionRunCommand:
		return a.Command
	case ActionListDir, ActionSearch:
		if a.Path == "" {
			return "."
		}
	}
	return a.Path
}

func targetHash(target string) string {
	h := sha256.Sum256([]byte(target))
	return hex.EncodeToString(h[:])
}

// mac is HMAC-SHA256 over the length-prefixed claim fields, so no two
// different claims share an encoding.
func mac(key []byte, c claims) []byte {
	m := hmac.New(sha256.New, key)
	var n [binary.MaxVarintLen64]byte
	field := func(s string) {
		m.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		io.WriteString(m, s)
	}
	field("nexus-capability-v1")
	field(c.Task)
	m.Write(n[:binary.PutVarint(n[:], int64(c.Step))])
	field(c.Action)
	field(c.Target)
	m.Write(n[:binary.PutVarint(n[:], c.Expiry)])
	return m.Sum(nil)
}

// ReadKeyFD reads the hex capability key the host wrote into the
// inherited pipe fd and closes the fd, so no child of the worker can
// inherit it. The key is never put in the environment.
func ReadKeyFD(fd int) ([]byte, error) {
	f := os.NewFile(uintptr(fd), "capability-key")
	if f == nil {
		return nil, fmt.Errorf("workers: no capability key: fd %d is not open", fd)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 4*KeySize))
	if err != nil {
		return nil, fmt.Errorf("workers: no capability key on fd %d (the nexus host starts workers with one): %w", fd, err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("workers: fd %d does not hold a hex capability key of at least 16 bytes", fd)
	}
	return key, nil
}
