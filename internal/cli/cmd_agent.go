package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

// AgentView is an agent identity in `agent list --json` and `agent show
// --json` (README.md "JSON output"); show adds the threads started as it.
type AgentView struct {
	ID           string   `json:"id"`
	Alias        string   `json:"alias"`
	Profile      string   `json:"profile"`
	Instructions string   `json:"instructions"`
	CreatedAt    int64    `json:"createdAt"`
	Threads      []string `json:"threads,omitempty"`
}

func viewAgent(a *core.Agent) AgentView {
	return AgentView{ID: a.ID, Alias: a.Alias, Profile: a.Profile, Instructions: a.Instructions, CreatedAt: a.CreatedAt}
}

func (a *app) cmdAgent(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageErr("usage: nexus agent add|list|show|remove ...")
	}
	switch args[0] {
	case "add":
		return a.agentAdd(ctx, args[1:])
	case "list":
		return a.agentList(ctx, args[1:])
	case "show":
		return a.agentShow(ctx, args[1:])
	case "remove":
		fs := flag.NewFlagSet("agent remove", flag.ContinueOnError)
		pos, err := parseArgs(fs, args[1:], 1, 1, "nexus agent remove ALIAS")
		if err != nil {
			return err
		}
		if err := core.CheckAlias(pos[0]); err != nil {
			return usageErr("%v", err)
		}
		return a.submitOnly(ctx, core.Command{Kind: core.CmdAgentRemove, Agent: pos[0]})
	}
	return usageErr("unknown agent command %q: use add, list, show or remove", args[0])
}

func (a *app) agentAdd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("agent add", flag.ContinueOnError)
	profile := fs.String("profile", "builtin", "provider profile the agent runs on (its provider, model and approval policy; see nexus providers)")
	instr := fs.String("instructions", "", "instructions the agent gets on every turn")
	file := fs.String("instructions-file", "", "read the instructions from this file")
	pos, err := parseArgs(fs, args, 1, 1, "nexus agent add ALIAS [--profile P] [--instructions TEXT | --instructions-file F]")
	if err != nil {
		return err
	}
	if err := core.CheckAlias(pos[0]); err != nil {
		return usageErr("%v", err)
	}
	if *file != "" {
		if *instr != "" {
			return usageErr("give --instructions or --instructions-file, not both")
		}
		b, err := readBounded(*file, core.MaxInstructionsBytes)
		if err != nil {
			return usageErr("--instructions-file: %v", err)
		}
		*instr = b
	}
	reg, err := a.registry()
	if err != nil {
		return err
	}
	prof, err := reg.Lookup(*profile)
	if err != nil {
		return usageErr("--profile: %v", err)
	}
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	rec, err := a.submit(ctx, s, core.Command{Kind: core.CmdAgentAdd, Agent: pos[0], NewAgent: core.NewID("g"),
		Profile: prof.Name, Instructions: *instr})
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, rec.Agent)
	s.linger(ctx)
	return nil
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", err
	}
	if len(b) > limit {
		return "", fmt.Errorf("%s is over the limit of %d bytes: shorten it", path, limit)
	}
	return string(b), nil
}

func (a *app) agentList(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("agent list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := parseArgs(fs, args, 0, 0, "nexus agent list [--json]"); err != nil {
		return err
	}
	st, err := a.state(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	views := []AgentView{}
	for _, ag := range st.AgentList() {
		views = append(views, viewAgent(ag))
	}
	if *asJSON {
		return json.NewEncoder(a.rawStdout).Encode(views)
	}
	if len(views) == 0 {
		fmt.Fprintln(a.stdout, "no agents: add one with `nexus agent add ALIAS --profile P --instructions TEXT`")
		return nil
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ALIAS\tPROFILE\tID\tINSTRUCTIONS")
	for _, v := range views {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", v.Alias, v.Profile, v.ID, gist(v.Instructions, 60))
	}
	return w.Flush()
}

func (a *app) agentShow(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("agent show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseArgs(fs, args, 1, 1, "nexus agent show ALIAS [--json]")
	if err != nil {
		return err
	}
	st, err := a.state(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	ag := st.AgentByAlias(pos[0])
	if ag == nil {
		return failErr("unknown agent %q: list agents with `nexus agent list`", pos[0])
	}
	v := viewAgent(ag)
	for _, th := range st.Threads {
		if th.Agent == ag.ID {
			v.Threads = append(v.Threads, th.ID)
		}
	}
	sort.Strings(v.Threads)
	if *asJSON {
		enc := json.NewEncoder(a.rawStdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	fmt.Fprintf(a.stdout, "@%s  %s  profile %s\n", v.Alias, v.ID, v.Profile)
	if v.Instructions != "" {
		fmt.Fprintf(a.stdout, "\n%s\n", strings.TrimRight(v.Instructions, "\n"))
	}
	if len(v.Threads) > 0 {
		fmt.Fprintf(a.stdout, "\nthreads: %s\n", strings.Join(v.Threads, " "))
	}
	return nil
}

// gist is the first line of s, cut to max runes.
func gist(s string, max int) string {
	s = firstLineOf(strings.TrimSpace(s))
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// asAgent resolves `thread new --agent ALIAS` against the host's state:
// the thread takes the agent's profile as its provider (and so its model
// and approval policy). An unknown alias, or a --provider that is not the
// agent's profile, is a usage error.
func (a *app) asAgent(ctx context.Context, s *session, fs *flag.FlagSet, o *threadOpts) error {
	if o.agent == "" {
		return nil
	}
	if err := core.CheckAlias(o.agent); err != nil {
		return usageErr("%v", err)
	}
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	ag := st.AgentByAlias(o.agent)
	if ag == nil {
		return usageErr("unknown agent %q: list agents with `nexus agent list`, or add it with `nexus agent add`", o.agent)
	}
	provider := false
	fs.Visit(func(f *flag.Flag) { provider = provider || f.Name == "provider" })
	if provider && o.provider != ag.Profile {
		return usageErr("agent %s runs on profile %s, not %s: drop --provider or --agent", ag.Alias, ag.Profile, o.provider)
	}
	o.provider = ag.Profile
	return nil
}
