package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/core/api"
)

// UsageView is `nexus usage --json` (README.md "JSON output"): the
// report's rows, and Since, the RFC 3339 time it starts at ("" for all).
type UsageView struct {
	Since string `json:"since"`
	core.UsageReport
}

func (a *app) cmdUsage(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("usage", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	sinceArg := fs.String("since", "", "only runs started from then on: a duration ago (12h, 7d), a day (2026-12-01, UTC) or an RFC 3339 time")
	if _, err := parseArgs(fs, args, 0, 0, "nexus usage [--json] [--since 7d|2026-12-01|TIME]"); err != nil {
		return err
	}
	since, err := parseSince(*sinceArg, time.Now())
	if err != nil {
		return err
	}
	st, err := a.state(ctx, api.StateQuery{Brief: true})
	if err != nil {
		return err
	}
	v := UsageView{UsageReport: core.SumUsage(st, since)}
	if since > 0 {
		v.Since = time.Unix(0, since).UTC().Format(time.RFC3339)
	}
	if *asJSON {
		return json.NewEncoder(a.rawStdout).Encode(v)
	}
	return printUsage(a.stdout, &v)
}

// parseSince reads --since: a duration ago (with d for days), a UTC day,
// or an RFC 3339 time; "" is 0 (everything).
func parseSince(s string, now time.Time) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 && d <= 100000 {
			return now.Add(-time.Duration(d) * 24 * time.Hour).UnixNano(), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d).UnixNano(), nil
	}
	// Unix nanoseconds count from 1678 to 2262.
	if t, err := time.Parse(time.DateOnly, s); err == nil && t.Year() > 1678 && t.Year() < 2262 {
		return t.UnixNano(), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil && t.Year() > 1678 && t.Year() < 2262 {
		return t.UnixNano(), nil
	}
	return 0, usageErr("--since %q: give a duration ago (12h, 7d), a day (2026-12-01, UTC) or an RFC 3339 time (2026-12-01T10:00:00Z)", s)
}

// printUsage prints the three tables and the total.
func printUsage(w io.Writer, v *UsageView) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(name string, u core.Usage) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", name, u.Runs, u.TokensIn, u.TokensOut, u.Cost())
	}
	fmt.Fprintln(tw, "THREAD\tRUNS\tTOKENS IN\tTOKENS OUT\tCOST")
	for _, t := range v.Threads {
		name := t.Thread + " " + t.Provider
		if t.Title != "" {
			name += " " + strconv.Quote(t.Title)
		}
		row(name, t.Usage)
	}
	fmt.Fprintln(tw, "\t\t\t\t")
	fmt.Fprintln(tw, "PROVIDER\t\t\t\t")
	for _, p := range v.Providers {
		row(p.Provider, p.Usage)
	}
	fmt.Fprintln(tw, "\t\t\t\t")
	fmt.Fprintln(tw, "DAY (UTC)\t\t\t\t")
	for _, d := range v.Days {
		row(d.Day, d.Usage)
	}
	fmt.Fprintln(tw, "\t\t\t\t")
	total := "TOTAL"
	if v.Since != "" {
		total += " since " + v.Since
	}
	row(total, v.Total)
	return tw.Flush()
}
