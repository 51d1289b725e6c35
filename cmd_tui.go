package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/nexus-tui/nexus/core/api"
	"github.com/nexus-tui/nexus/themes"
	"github.com/nexus-tui/nexus/tui"
)

// cmdTUI opens the full-screen UI: as the host when no process owns the
// state dir (quitting stops the host and its agents), else as a client of
// the running host (quitting leaves the host and its agents running).
func (a *app) cmdTUI(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tui", flag.ContinueOnError)
	if _, err := parseArgs(fs, args, 0, 0, "nexus [--theme dark|light|high-contrast|none] [tui]"); err != nil {
		return err
	}
	if _, err := themes.Resolve(a.theme, os.Getenv); err != nil {
		return usageErr("%v", err)
	}
	in, inOK := a.stdin.(*os.File)
	out, outOK := a.stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return usageErr("the full-screen UI needs a terminal; from scripts use the subcommands (nexus --help)")
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	if s.host != nil {
		// Quitting the UI host stops it at once, clients or not (the
		// quit dialog says so when runs are active).
		defer s.host.close()
	} else {
		defer s.stop()
	}
	label := "host"
	if s.host == nil {
		label = "client"
		if c, ok := s.Backend.(*api.Client); ok {
			label = fmt.Sprintf("client of pid %d", c.Info().PID)
		}
	}
	reg := newRegistry(nil)
	var profiles []tui.Profile
	for _, name := range reg.Names() {
		p, _ := reg.Lookup(name)
		profiles = append(profiles, tui.Profile{Name: p.Name, Description: p.Description, Caps: p.Caps})
	}
	ws, _ := os.Getwd()
	return tui.Run(ctx, s, tui.Options{Theme: a.theme, StateDir: s.dir, HostLabel: label,
		Host: s.host != nil, Profiles: profiles, Workspace: ws,
		IO: tui.IO{Input: in, Output: out}})
}
