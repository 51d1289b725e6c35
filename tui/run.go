package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/themes"
)

// Run shows the full-screen UI on backend until the person quits or ctx
// ends. It returns nil on a normal quit. The caller owns the backend:
// Run neither stops a host nor closes a client.
func Run(ctx context.Context, backend Backend, opts Options) error {
	getenv := os.Getenv
	if opts.IO.Env != nil {
		getenv = envLookup(opts.IO.Env)
	}
	theme, err := themes.Resolve(opts.Theme, getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	m := newModel(ctx, backend, opts, themes.NewStyles(theme))
	m.notify.term = detectNotifyTerm(getenv)
	if opts.StateDir != "" {
		path := filepath.Join(opts.StateDir, prefsFile)
		m.prefs, err = loadPrefs(path)
		if err != nil {
			m.startNote = err.Error()
		}
		m.prefsOut = &prefsWriter{path: path}
		m.relayout()
	}
	p, err := newProgram(ctx, m, opts.IO)
	if err != nil {
		return err
	}
	m.terms.send = p.Send
	setTermNiceFromEnv()

	br := newBridge(backend, p.Send)
	m.resync = br.requestResync
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		br.run(ctx)
	}()
	if ch := opts.HostLabelChanged; ch != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			relabel(ctx, ch, p.Send)
		}()
	}

	_, err = p.Run()
	p.close()
	cancel()
	wg.Wait()
	m.terms.wg.Wait() // the terminal panes end with ctx
	// The model is no longer in use: keep the layout the person left. A
	// failure here is not worth a failed exit: saves during the session
	// already reported theirs in the status line.
	m.keepDraft()
	_ = m.prefsOut.flush(m.prefs)
	if errors.Is(err, context.Canceled) || errors.Is(err, tea.ErrInterrupted) {
		return nil // ended by a signal or the caller's context: not an error
	}
	if err == nil && m.switchTo != nil {
		return m.switchTo
	}
	return err
}

// labelMsg wakes the UI for a frame: the host label changed.
type labelMsg struct{}

// relabel sends a labelMsg for each tick of changed until it closes or
// ctx ends (any message draws a frame: frames.go).
func relabel(ctx context.Context, changed <-chan struct{}, send func(tea.Msg)) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changed:
			if !ok {
				return
			}
			send(labelMsg{})
		}
	}
}

// envLookup is os.Getenv over an explicit environment.
func envLookup(env []string) func(string) string {
	return func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v
			}
		}
		return ""
	}
}
