package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

func (a *app) cmdBudget(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("budget", flag.ContinueOnError)
	usd := fs.Float64("usd", 0, "the budget in US dollars (0: none)")
	tokens := fs.Int("max-tokens", 0, "the thread's token cap (0: none)")
	daily := fs.Bool("daily", false, "the daily budget of all threads together (UTC days) instead of a thread's")
	const usage = "nexus budget THREAD [--usd X] [--max-tokens N] | nexus budget --daily [--usd X]"
	pos, err := parseArgs(fs, args, 0, 1, usage)
	if err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = f.Name != "daily" })
	if given["usd"] && (*usd < 0 || *usd != *usd || *usd > 1e9) {
		return usageErr("--usd %g: give an amount in US dollars, 0 for no budget", *usd)
	}
	if given["max-tokens"] && *tokens < 0 {
		return usageErr("--max-tokens %d: give a count of tokens, 0 for no cap", *tokens)
	}
	if *daily != (len(pos) == 0) || *daily && given["max-tokens"] {
		return usageErr("give a THREAD, or --daily without one (a daily budget is in USD only); usage: %s", usage)
	}
	if *daily {
		return a.dailyBudget(ctx, given["usd"], *usd)
	}
	s, st, th, err := a.connectThread(ctx, pos[0])
	if err != nil {
		return err
	}
	defer s.stop()
	if !given["usd"] && !given["max-tokens"] {
		u := core.ThreadTotal(st, th)
		fmt.Fprintf(a.stdout, "spent %s, %d tokens; budget %s, token cap %s\n", u.Cost(), u.TokensIn+u.TokensOut,
			orNone(th.BudgetUSD > 0, dollars(th.BudgetUSD)), orNone(th.MaxTokens > 0, strconv.Itoa(th.MaxTokens)))
		return nil
	}
	cmd := core.Command{Kind: core.CmdThreadBudget, Thread: th.ID, BudgetUSD: th.BudgetUSD, MaxTokens: th.MaxTokens}
	if given["usd"] {
		cmd.BudgetUSD = *usd
	}
	if given["max-tokens"] {
		cmd.MaxTokens = *tokens
	}
	if _, err := a.submit(ctx, s, cmd); err != nil {
		return err
	}
	s.linger(ctx)
	return nil
}

// dailyBudget sets the daily budget, or shows it with today's spend.
func (a *app) dailyBudget(ctx context.Context, set bool, usd float64) error {
	s, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	if set {
		if _, err := a.submit(ctx, s, core.Command{Kind: core.CmdDailyBudget, BudgetUSD: usd}); err != nil {
			return err
		}
		s.linger(ctx)
		return nil
	}
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	day := core.UsageDay(time.Now().UnixNano())
	spent := core.Usage{}
	for _, d := range core.SumUsage(st, 0).Days {
		if d.Day == day {
			spent = d.Usage
		}
	}
	fmt.Fprintf(a.stdout, "spent %s on %s (UTC); daily budget %s\n", spent.Cost(), day,
		orNone(st.DailyBudgetUSD > 0, dollars(st.DailyBudgetUSD)))
	return nil
}

func orNone(ok bool, s string) string {
	if ok {
		return s
	}
	return "none"
}

// connectThread resolves a THREAD argument and connects to the host; the
// caller stops the session.
func (a *app) connectThread(ctx context.Context, arg string) (*session, *core.State, *core.Thread, error) {
	id, err := a.threadArg(ctx, arg)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := a.connect(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := s.stateOf(ctx, api.StateQuery{Brief: true})
	if err == nil && st.Threads[id] == nil {
		err = failErr("unknown thread %q: list threads with `nexus thread list`", arg)
	}
	if err != nil {
		s.stop()
		return nil, nil, nil, err
	}
	return s, st, st.Threads[id], nil
}
