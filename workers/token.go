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
// v2 added the nonce.
const tokenPrefix = "v2."

// TokenGrace is how far beyond its step's timeout a token's expiry may
// lie, counted from when the worker checks it. A worker refuses a token
// that would live longer (ErrTokenLifetime): it remembers the tokens it
// accepted until they expire, and a token good for a century would be a
// standing permission.
const TokenGrace = time.Minute

// MaxStepTimeout is the longest timeout a step may have. It bounds a
// token's lifetime (the timeout plus TokenGrace) whatever timeout_ms a
// request names.
const MaxStepTimeout = 24 * time.Hour

// minNonce is the shortest nonce Verify accepts (NewNonce makes 32 hex
// digits).
const minNonce = 16

// Grant is what a capability token allows: one action of one step of one
// task on one target (a workspace path, or the command line for
// run_command), once, until Expiry. Task and Step with the Nonce name the
// one request the token is for; a worker accepts a nonce once.
type Grant struct {
	Task   string
	Step   int
	Action string
	Target string
	Nonce  string // from NewNonce, a fresh one per token
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
	Nonce  string `json:"n"`
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

// NewNonce returns a fresh random token nonce: 128 bits, hex.
func NewNonce() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// Sign returns the capability token for g.
func Sign(key []byte, g Grant) string {
	c := claims{Task: g.Task, Step: g.Step, Action: g.Action, Target: targetHash(g.Target), Nonce: g.Nonce, Expiry: g.Expiry.UnixNano()}
	body, _ := json.Marshal(c) // cannot fail: strings and ints only
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(body) + "." +
		base64.RawURLEncoding.EncodeToString(mac(key, c))
}

// Verify checks token against the grant the worker is about to act on,
// at now (g.Nonce and g.Expiry are ignored unless set, when they must
// match). maxLife, when positive, is the furthest from now the token's
// expiry may lie. It returns the token's grant, whose Nonce and Expiry
// the caller needs to accept it only once (a worker's ledger). The error
// wraps one of ErrTokenMissing, ErrTokenMalformed, ErrTokenForged,
// ErrTokenMismatch, ErrTokenExpired or ErrTokenLifetime and says what
// was wrong.
func Verify(key []byte, token string, g Grant, now time.Time, maxLife time.Duration) (Grant, error) {
	c, err := decode(key, token)
	if err != nil {
		return Grant{}, err
	}
	if err := c.match(g); err != nil {
		return Grant{}, err
	}
	exp := time.Unix(0, c.Expiry)
	if !now.Before(exp) {
		return Grant{}, fmt.Errorf("%w: token expired at %s (%s ago)", ErrTokenExpired,
			exp.UTC().Format(time.RFC3339), now.Sub(exp).Round(time.Millisecond))
	}
	if maxLife > 0 && exp.Sub(now) > maxLife {
		return Grant{}, fmt.Errorf("%w: token expires at %s, %s from now; a token for this step may live at most %s",
			ErrTokenLifetime, exp.UTC().Format(time.RFC3339), exp.Sub(now).Round(time.Second), maxLife)
	}
	return Grant{Task: c.Task, Step: c.Step, Action: c.Action, Target: g.Target, Nonce: c.Nonce, Expiry: exp}, nil
}

// decode checks a token's form and MAC and returns its claims.
func decode(key []byte, token string) (claims, error) {
	var c claims
	if token == "" {
		return c, fmt.Errorf("%w: the request carries no capability token", ErrTokenMissing)
	}
	if len(key) == 0 {
		return c, fmt.Errorf("%w: this worker has no capability key to check tokens with", ErrTokenForged)
	}
	body, sig, ok := strings.Cut(strings.TrimPrefix(token, tokenPrefix), ".")
	if !strings.HasPrefix(token, tokenPrefix) || !ok {
		return c, fmt.Errorf("%w: token is not of the form %sCLAIMS.MAC", ErrTokenMalformed, tokenPrefix)
	}
	rawBody, err1 := base64.RawURLEncoding.DecodeString(body)
	rawSig, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || json.Unmarshal(rawBody, &c) != nil {
		return c, fmt.Errorf("%w: token parts do not decode", ErrTokenMalformed)
	}
	if !hmac.Equal(rawSig, mac(key, c)) {
		return c, fmt.Errorf("%w: its signature does not match this host's key", ErrTokenForged)
	}
	if len(c.Nonce) < minNonce {
		return c, fmt.Errorf("%w: token has no nonce of at least %d characters, so it could be replayed", ErrTokenMalformed, minNonce)
	}
	return c, nil
}

// match checks that the claims are for the grant.
func (c claims) match(g Grant) error {
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
	case g.Nonce != "" && c.Nonce != g.Nonce:
		return fmt.Errorf("%w: token is for another request (nonce) than the grant", ErrTokenMismatch)
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
	field("nexus-capability-v2")
	field(c.Task)
	m.Write(n[:binary.PutVarint(n[:], int64(c.Step))])
	field(c.Action)
	field(c.Target)
	field(c.Nonce)
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
