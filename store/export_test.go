package store

import "github.com/nexus-tui/nexus/core"

// EncodeEvent is the stored encoding of one event, for the external
// tests that pin the format (format_golden_test.go).
func EncodeEvent(ev *core.Event) []byte { return appendEvent(nil, ev) }
