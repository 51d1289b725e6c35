//go:build race

package e2e

// raceEnabled makes the end-to-end tests build the nexus binary with the
// race detector when the tests themselves run with -race.
const raceEnabled = true
