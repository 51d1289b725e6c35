//go:build !failpoints

package failpoint

// Hit is a failpoint; without the failpoints build tag it does nothing.
func Hit(string) {}

// Err is an injected I/O error; without the failpoints build tag it is
// always nil.
func Err(string) error { return nil }
