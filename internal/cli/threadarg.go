package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/nexus-tui/nexus/core/api"
)

// fullThreadID is the shape of the ids nexus makes (core.NewID("t")).
var fullThreadID = regexp.MustCompile(`^t[0-9a-f]{7}$`)

// threadArg resolves a THREAD argument as a person types it: a thread's
// id, a unique prefix of one, or a thread's exact title. Several matches
// are a usage error that lists them; no match leaves the argument as it
// is, for the command to report as unknown. A whole id is taken as it is,
// without reading the state.
func (a *app) threadArg(ctx context.Context, arg string) (string, error) {
	if fullThreadID.MatchString(arg) || arg == "" {
		return arg, nil
	}
	// Its own session, closed at once: the command connects after (a
	// read-only host of this process would hold the journal meanwhile).
	s, err := a.dialOrHost(ctx, true)
	if err != nil {
		return "", err
	}
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	s.stop()
	if err != nil {
		return "", err
	}
	if st.Threads[arg] != nil {
		return arg, nil
	}
	var matches []string
	for _, th := range sortedThreads(st) {
		if th.Title == arg || (len(arg) >= 2 && strings.HasPrefix(th.ID, arg)) {
			matches = append(matches, fmt.Sprintf("%s (%s)", th.ID, th.Title))
		}
	}
	switch len(matches) {
	case 0:
		return arg, nil
	case 1:
		id, _, _ := strings.Cut(matches[0], " ")
		return id, nil
	}
	return "", usageErr("%q matches %d threads: %s; give more of the id", arg, len(matches), strings.Join(matches, ", "))
}
