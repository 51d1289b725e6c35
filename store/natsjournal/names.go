package natsjournal

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/zeebo/blake3"
)

// Names on the server. Part of the stream format (see doc.go).
const (
	streamPrefix  = "NEXUS_" // stream of project p: NEXUS_<token(p)>
	bucketSuffix  = "_SNAP"  // object store of project p: NEXUS_<token(p)>_SNAP
	subjectPrefix = "nexus." // subject of a commit: nexus.<token(p)>.j.<thread token>
	subjectJ      = ".j."    // the journal's part of a project's subject space
	projectWide   = "_"      // thread token of a commit that names no thread
	maxToken      = 64       // longer keys are cut and hashed
	tokenHash     = 8        // hex digits of BLAKE3 added to a changed key
	tokenAlphabet = "-_" + "0123456789" + "abcdefghijklmnopqrstuvwxyz" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// names are the server-side names of one project's journal.
type names struct {
	stream  string // the stream holding the commits
	bucket  string // the object store holding the snapshots
	subject string // subject prefix of the commits, up to the thread token
}

// namesFor derives the names of project's journal.
func namesFor(project string) (names, error) {
	if strings.TrimSpace(project) == "" {
		return names{}, errors.New("natsjournal: the project key is empty; pass the project's name or id")
	}
	tok := token(project)
	return names{
		stream:  streamPrefix + tok,
		bucket:  streamPrefix + tok + bucketSuffix,
		subject: subjectPrefix + tok + subjectJ,
	}, nil
}

// token turns a key into a name that is valid both as a NATS stream or
// bucket name and as a subject token: letters, digits, '-' and '_' are
// kept and anything else becomes '_'. A key that had to change (or is
// longer than maxToken, or is the project-wide token itself) gets '-' and
// the first hex digits of its BLAKE3 appended, so two different keys never
// share a name.
func token(key string) string {
	var b strings.Builder
	changed := len(key) > maxToken || key == projectWide
	for _, r := range key {
		if b.Len() >= maxToken {
			changed = true
			break
		}
		if r < 0x80 && strings.IndexByte(tokenAlphabet, byte(r)) >= 0 {
			b.WriteRune(r)
			continue
		}
		changed = true
		b.WriteByte('_')
	}
	if !changed {
		return b.String()
	}
	sum := blake3.Sum256([]byte(key))
	return b.String() + "-" + hex.EncodeToString(sum[:])[:tokenHash]
}

// threadToken is the subject token of a commit's thread.
func threadToken(thread string) string {
	if thread == "" {
		return projectWide
	}
	return token(thread)
}
