package core

import (
	"strconv"
	"time"
)

// Usage is tokens and cost summed over model calls. CostUnknown: some of
// the tokens came without a price (Codex, an ACP agent that reports no
// cost), so CostUSD counts only the priced part.
type Usage struct {
	TokensIn    int     `json:"tokensIn"`
	TokensOut   int     `json:"tokensOut"`
	CostUSD     float64 `json:"costUsd"`
	CostUnknown bool    `json:"costUnknown"`
	Runs        int     `json:"runs"`
}

func (u *Usage) add(r *Run) {
	u.TokensIn += r.TokensIn
	u.TokensOut += r.TokensOut
	u.CostUSD += r.CostUSD
	u.CostUnknown = u.CostUnknown || r.NoCost
	u.Runs++
}

// ThreadUsage is one thread's row of a UsageReport.
type ThreadUsage struct {
	Thread   string `json:"thread"`
	Title    string `json:"title"`
	Provider string `json:"provider"`
	Usage
}

// ProviderUsage is one provider profile's row.
type ProviderUsage struct {
	Provider string `json:"provider"`
	Usage
}

// DayUsage is one UTC day's row (YYYY-MM-DD).
type DayUsage struct {
	Day string `json:"day"`
	Usage
}

// UsageReport sums the usage of runs per thread, per provider and per day.
// Rows are sorted by thread id, provider name and day; only rows with
// usage appear.
type UsageReport struct {
	Total     Usage           `json:"total"`
	Threads   []ThreadUsage   `json:"threads"`
	Providers []ProviderUsage `json:"providers"`
	Days      []DayUsage      `json:"days"`
}

// UsageDay is the UTC day a time (unix nanos) falls on, as the report
// names it. Days are UTC so that every machine sums a journal alike.
func UsageDay(at int64) string { return time.Unix(0, at).UTC().Format(time.DateOnly) }

// SumUsage reports the usage of the runs that started at or after since
// (unix nanos; 0 for all). A run counts whole, under the provider profile
// that ran it and the day it started. It reads only threads and runs, never
// sealed histories, so it does no I/O.
func SumUsage(st *State, since int64) UsageReport {
	rep := UsageReport{Threads: []ThreadUsage{}, Providers: []ProviderUsage{}, Days: []DayUsage{}}
	providers, days := map[string]*Usage{}, map[string]*Usage{}
	for _, id := range sortedKeys(st.Threads) {
		th := st.Threads[id]
		row := ThreadUsage{Thread: th.ID, Title: th.Title, Provider: th.Provider}
		for _, r := range st.RunsOf(id) {
			if r.TokensIn+r.TokensOut == 0 && r.CostUSD == 0 || runStart(r) < since {
				continue
			}
			row.add(r)
			rep.Total.add(r)
			bucket(providers, orDefault(r.Provider, th.Provider)).add(r)
			bucket(days, UsageDay(runStart(r))).add(r)
		}
		if row.Runs > 0 {
			rep.Threads = append(rep.Threads, row)
		}
	}
	for _, k := range sortedKeys(providers) {
		rep.Providers = append(rep.Providers, ProviderUsage{Provider: k, Usage: *providers[k]})
	}
	for _, k := range sortedKeys(days) {
		rep.Days = append(rep.Days, DayUsage{Day: k, Usage: *days[k]})
	}
	return rep
}

func runStart(r *Run) int64 {
	if r.StartedAt != 0 {
		return r.StartedAt
	}
	return r.CreatedAt
}

func bucket(m map[string]*Usage, k string) *Usage {
	if m[k] == nil {
		m[k] = &Usage{}
	}
	return m[k]
}

// Cost is the cost as people read it: "$0.0123" below a dollar, "$1.20"
// from one, "unknown" when no part of the usage was priced, "$1.20 +
// unknown" when only part was.
func (u Usage) Cost() string {
	s := "$" + strconv.FormatFloat(u.CostUSD, 'f', 2, 64)
	if u.CostUSD > 0 && u.CostUSD < 1 {
		s = "$" + strconv.FormatFloat(u.CostUSD, 'f', 4, 64)
	}
	switch {
	case u.CostUnknown && u.CostUSD == 0:
		return "unknown"
	case u.CostUnknown:
		return s + " + unknown"
	}
	return s
}

// ThreadTotal is a thread's usage as the thread keeps it (what `thread show
// --json` reports and the list shows).
func ThreadTotal(st *State, th *Thread) Usage {
	u := Usage{TokensIn: th.TokensIn, TokensOut: th.TokensOut, CostUSD: th.CostUSD, CostUnknown: th.NoCost}
	for _, r := range st.RunsOf(th.ID) {
		if r.TokensIn+r.TokensOut > 0 || r.CostUSD > 0 {
			u.Runs++
		}
	}
	return u
}
