//go:build !failpoints

package failpoint

// Hit is a failpoint; without the failpoints build tag it does nothing.
func Hit(string) {}
