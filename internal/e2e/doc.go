// Package e2e holds the suites that drive the built nexus binary as a
// user or a script would: the command line, the full-screen UI in tmux,
// the real agent CLIs against a fake model server, kill -9 crash loops,
// power loss, injected faults and the end-to-end benchmarks.
//
// TestMain builds the binary once (with -race when the tests run with
// it) and changes to the module root, so every suite reads testdata/
// and tui/testdata/ by their repository paths. Each test gets its own
// state dir, config dir and workspace; nothing reads the developer's
// own config. Unit tests of a package stay beside that package: this
// tree is only what needs a real process.
package e2e
