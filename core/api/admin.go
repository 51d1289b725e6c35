package api

import (
	"context"
	"fmt"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// Host administration: what a host is doing, and stopping it.
const (
	MethodHostStatus = "host.status"
	MethodHostStop   = "host.stop"
	MethodHostVerify = "host.verify"
	MethodHostExport = "host.export"
)

// LiveWork is what a host is doing that would stop with it: runs not yet
// ended (running, waiting or queued), requests an agent waits on, and
// live terminals (shell threads, PTY agents); and the schedules it fires.
type LiveWork struct {
	Runs      int `json:"runs"`
	Requests  int `json:"requests"`
	Terminals int `json:"terminals"`
	// Missions are the missions at work (not ended, not waiting on the
	// person).
	Missions int `json:"missions,omitempty"`
	// Schedules are the schedules not removed: they fire only while a
	// host runs.
	Schedules int `json:"schedules,omitempty"`
}

// Any reports whether there is live work (a background host stays).
func (l LiveWork) Any() bool { return l.Ongoing() || l.Schedules > 0 }

// Ongoing reports whether there is work a stop would cut off: everything
// Any counts but schedules, which the next host fires (a slot missed
// meanwhile once, at its start).
func (l LiveWork) Ongoing() bool { return l.Runs+l.Requests+l.Terminals+l.Missions > 0 }

// String says it in words: "2 runs, 1 live terminal", or "nothing".
func (l LiveWork) String() string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(l.Runs, "run", "runs")
	add(l.Missions, "mission", "missions")
	add(l.Requests, "pending request", "pending requests")
	add(l.Terminals, "live terminal", "live terminals")
	add(l.Schedules, "schedule", "schedules")
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// HostStatus is host.status's answer.
type HostStatus struct {
	HostInfo
	// StartedAt is when the host started (Unix nanoseconds).
	StartedAt int64 `json:"startedAt"`
	// Background: the host runs detached and outlives its clients;
	// Linger is how long it stays once nothing needs it ("10m0s",
	// "never"); empty for a foreground or in-process host.
	Background bool   `json:"background"`
	Linger     string `json:"linger,omitempty"`
	// Connections are the open client connections (a UI holds several).
	Connections int      `json:"connections"`
	Live        LiveWork `json:"live"`
}

// Admin is what a host tells about itself and how it is stopped; the
// server answers host.status and host.stop with it.
type Admin interface {
	// Status fills everything but HostInfo and Connections.
	Status(ctx context.Context) (HostStatus, error)
	// Stop asks the host to stop. Without force it refuses while there
	// is live work, with an error that says what.
	Stop(ctx context.Context, force bool) error
	// Verify checks the journal the host holds open; the report is the
	// store's, as JSON.
	Verify(ctx context.Context) (any, error)
	// Export writes the journal to a new file at path (absolute, never
	// overwritten) and returns the events written.
	Export(ctx context.Context, path string) (uint64, error)
}

type stopParams struct {
	Force bool `json:"force,omitempty"`
}

type exportParams struct {
	Path string `json:"path"`
}

type exportResult struct {
	Events uint64 `json:"events"`
}

// SetAdmin makes the server answer host.status and host.stop; call it
// before Serve.
func (s *Server) SetAdmin(a Admin) { s.admin = a }

// Connections counts the open client connections.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func (s *Server) dispatchAdmin(ctx context.Context, method string, params []byte) (any, error) {
	if s.admin == nil {
		return nil, &wireError{Code: CodeMethodNotFound, Message: method + ": this host has no administration"}
	}
	switch method {
	case MethodHostStatus:
		st, err := s.admin.Status(ctx)
		if err != nil {
			return nil, err
		}
		st.HostInfo, st.Connections = s.info, s.Connections()
		return st, nil
	case MethodHostVerify:
		return s.admin.Verify(ctx)
	case MethodHostExport:
		var p exportParams
		if err := decodeParams(method, params, &p); err != nil {
			return nil, err
		}
		if p.Path == "" {
			return nil, &core.InputError{Msg: "host.export needs params.path, an absolute file path"}
		}
		n, err := s.admin.Export(ctx, p.Path)
		return exportResult{Events: n}, err
	}
	var p stopParams
	if !isAbsent(params) {
		if err := decodeParams(method, params, &p); err != nil {
			return nil, err
		}
	}
	return struct{}{}, s.admin.Stop(ctx, p.Force)
}

// HostStatus asks the host what it is doing.
func (c *Client) HostStatus(ctx context.Context) (HostStatus, error) {
	var st HostStatus
	err := c.call(ctx, MethodHostStatus, nil, &st)
	return st, err
}

// StopHost asks the host to stop; without force a host with live work
// refuses, saying what it is doing.
func (c *Client) StopHost(ctx context.Context, force bool) error {
	var out struct{}
	return c.call(ctx, MethodHostStop, stopParams{Force: force}, &out)
}

// HostVerify asks the host to verify the journal it holds open and
// decodes its report into out.
func (c *Client) HostVerify(ctx context.Context, out any) error {
	return c.call(ctx, MethodHostVerify, nil, out)
}

// HostExport asks the host to export its journal to a new file at path
// (absolute); it returns the events written.
func (c *Client) HostExport(ctx context.Context, path string) (uint64, error) {
	var r exportResult
	err := c.call(ctx, MethodHostExport, exportParams{Path: path}, &r)
	return r.Events, err
}
