package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/store/natsjournal"
)

// hubTimeout bounds reaching the hub for one command.
const hubTimeout = 10 * time.Second

// dialHub connects to the hub of the config's [team] table, as the host
// of this machine does, and says whether its credentials are a viewer's.
func (a *app) dialHub() (*nats.Conn, *config.Team, bool, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, nil, false, err
	}
	if cfg.Team == nil {
		return nil, nil, false, usageErr("no hub: the config has no [team] table; add one (nexus hub prints it) to reach the team's projects")
	}
	t := cfg.Team
	viewer := false
	if t.Credentials != "" {
		c, err := natsjournal.ReadCredentials(t.Credentials)
		if err != nil {
			return nil, nil, false, err
		}
		viewer = c.User == natsjournal.ViewerUser
	}
	nc, err := natsjournal.Connect(t.URL, natsjournal.ConnectOptions{Credentials: t.Credentials, CA: t.CA, Name: "nexus " + a.project})
	if err != nil {
		return nil, nil, false, err
	}
	return nc, t, viewer, nil
}

// hubSession makes this invocation a client of project a.project through
// the hub (--project): its state and events come from the project's
// journal, its commands go to the project's owner through the command
// queue, wherever that host runs. Nothing of this machine's state dir is
// used.
func (a *app) hubSession(ctx context.Context) (*session, error) {
	nc, _, viewer, err := a.dialHub()
	if err != nil {
		return nil, err
	}
	octx, cancel := context.WithTimeout(ctx, hubTimeout)
	defer cancel()
	r, err := natsjournal.OpenRemote(octx, nc, a.project, natsjournal.RemoteOptions{ReadOnly: viewer})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("project %s on the hub: %w; `nexus team` lists the hub's projects", a.project, err)
	}
	return &session{Backend: r, dir: "hub:" + a.project, stop: func() { _ = r.Close(); nc.Close() }}, nil
}

// cmdTeam is `nexus team [--json]`: every project on the hub, grouped
// under the host that holds it (or "no owner"), with its threads.
func (a *app) cmdTeam(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("team", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := parseArgs(fs, args, 0, 0, "nexus team [--json]"); err != nil {
		return err
	}
	nc, _, _, err := a.dialHub()
	if err != nil {
		return err
	}
	defer nc.Close()
	lctx, cancel := context.WithTimeout(ctx, hubTimeout)
	defer cancel()
	projects, err := natsjournal.Projects(lctx, nc)
	if err != nil {
		return err
	}
	type thread struct {
		ID      string            `json:"id"`
		Title   string            `json:"title"`
		Status  core.ThreadStatus `json:"status"`
		Pending int               `json:"pendingRequests"`
	}
	type project struct {
		Project string   `json:"project"`
		Host    string   `json:"host"`
		Up      bool     `json:"up"`
		Threads []thread `json:"threads"`
		Error   string   `json:"error,omitempty"`
	}
	out := []project{}
	for _, p := range projects {
		row := project{Project: p.Project, Host: p.Owner, Up: p.Owner != "", Threads: []thread{}}
		r, err := natsjournal.OpenRemote(lctx, nc, p.Project, natsjournal.RemoteOptions{ReadOnly: true})
		if err == nil {
			var st *core.State
			st, err = r.State(lctx)
			_ = r.Close()
			if err == nil {
				for _, th := range sortedThreads(st) {
					if !th.Archived {
						row.Threads = append(row.Threads, thread{th.ID, th.Title, th.Status, pendingOf(st, th.ID)})
					}
				}
			}
		}
		if err != nil {
			row.Error = err.Error()
		}
		out = append(out, row)
	}
	if *asJSON {
		return json.NewEncoder(a.rawStdout).Encode(out)
	}
	if len(out) == 0 {
		fmt.Fprintln(a.stdout, "no project on the hub yet: a host with [team] in its config makes its project's journal")
		return nil
	}
	for i, p := range out {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		host := p.Host
		if !p.Up {
			host = "no owner (no host up; commands wait)"
		}
		fmt.Fprintf(a.stdout, "%s  project %s\n", host, p.Project)
		if p.Error != "" {
			fmt.Fprintf(a.stdout, "  cannot read it: %s\n", oneLine(p.Error))
			continue
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		for _, th := range p.Threads {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d pending\n", th.ID, th.Title, th.Status, th.Pending)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(p.Threads) == 0 {
			fmt.Fprintln(a.stdout, "  (no threads)")
		}
	}
	return nil
}

// pendingOf counts the thread's requests waiting for an answer.
func pendingOf(st *core.State, thread string) int {
	n := 0
	for _, r := range st.RunsOf(thread) {
		for _, q := range st.RequestsOf(r.ID) {
			if q.Status == core.RequestPending {
				n++
			}
		}
	}
	return n
}
