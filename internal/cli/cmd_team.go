package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/internal/config"
	"github.com/nexus-tui/nexus/store/natsjournal"
	"github.com/nexus-tui/nexus/tui"
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
	// dir stays this machine's state dir: the UI keeps its layout and
	// drafts there; nothing else of it is used.
	dir, err := a.resolveStateDir()
	if err != nil {
		_ = r.Close()
		nc.Close()
		return nil, err
	}
	return &session{Backend: r, dir: dir, stop: func() { _ = r.Close(); nc.Close() }}, nil
}

// cmdTeam is `nexus team [--json]`: every project on the hub, grouped
// under the host that holds it (or "no owner"), with its threads.
func (a *app) cmdTeam(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("team", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := parseArgs(fs, args, 0, 0, "nexus team [--json]"); err != nil {
		return err
	}
	out, err := a.readTeam(ctx)
	if err != nil {
		return err
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
		host := natsjournal.HolderName(p.Host)
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
			pending := fmt.Sprintf("%d pending", th.Pending)
			if len(th.Requests) > 0 {
				// What `nexus --project P respond R --allow` takes.
				pending += ": " + strings.Join(th.Requests, " ")
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", th.ID, th.Title, th.Status, pending)
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

// teamProject is one project of `nexus team` (its --json shape).
type teamProject struct {
	Project string       `json:"project"`
	Host    string       `json:"host"`
	Up      bool         `json:"up"`
	Threads []teamThread `json:"threads"`
	Error   string       `json:"error,omitempty"`
}

type teamThread struct {
	ID      string            `json:"id"`
	Title   string            `json:"title"`
	Status  core.ThreadStatus `json:"status"`
	Pending int               `json:"pendingRequests"`
	// Requests are the ids of the pending requests, oldest first.
	Requests []string `json:"requests,omitempty"`
}

// readTeam reads every project on the hub: its owner and its threads.
func (a *app) readTeam(ctx context.Context) ([]teamProject, error) {
	nc, _, _, err := a.dialHub()
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	lctx, cancel := context.WithTimeout(ctx, hubTimeout)
	defer cancel()
	projects, err := natsjournal.Projects(lctx, nc)
	if err != nil {
		return nil, err
	}
	out := []teamProject{}
	for _, p := range projects {
		row := teamProject{Project: p.Project, Host: p.Owner, Up: p.Owner != "", Threads: []teamThread{}}
		r, err := natsjournal.OpenRemote(lctx, nc, p.Project, natsjournal.RemoteOptions{ReadOnly: true})
		if err == nil {
			var st *core.State
			st, err = r.State(lctx)
			_ = r.Close()
			if err == nil {
				for _, th := range sortedThreads(st) {
					if !th.Archived {
						ids := pendingIDs(st, th.ID)
						row.Threads = append(row.Threads, teamThread{th.ID, th.Title, th.Status, len(ids), ids})
					}
				}
			}
		}
		if err != nil {
			row.Error = err.Error()
		}
		out = append(out, row)
	}
	return out, nil
}

// tuiTeam is the UI's team dialog source (nil without a hub).
func (a *app) tuiTeam(cfg *config.Config) func(context.Context) ([]tui.TeamProject, error) {
	if cfg == nil || cfg.Team == nil {
		return nil
	}
	return func(ctx context.Context) ([]tui.TeamProject, error) {
		ps, err := a.readTeam(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]tui.TeamProject, 0, len(ps))
		for _, p := range ps {
			tp := tui.TeamProject{Project: p.Project, Host: natsjournal.HolderName(p.Host), Up: p.Up, Err: p.Error}
			for _, th := range p.Threads {
				tp.Threads = append(tp.Threads, tui.TeamThread{ID: th.ID, Title: th.Title, Status: string(th.Status), Pending: th.Pending})
			}
			out = append(out, tp)
		}
		return out, nil
	}
}

// pendingOf counts the thread's requests waiting for an answer.
func pendingOf(st *core.State, thread string) int { return len(pendingIDs(st, thread)) }

// pendingIDs are the ids of the thread's requests waiting for an answer,
// run by run.
func pendingIDs(st *core.State, thread string) []string {
	var ids []string
	for _, r := range st.RunsOf(thread) {
		for _, q := range st.RequestsOf(r.ID) {
			if q.Status == core.RequestPending {
				ids = append(ids, q.ID)
			}
		}
	}
	return ids
}
