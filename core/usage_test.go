package core

import (
	"testing"
	"time"
)

// TestSumUsage: the report's rows add up per thread, provider and UTC day,
// agree with the thread totals, and --since leaves out older runs.
func TestSumUsage(t *testing.T) {
	h := &harness{st: NewState()}
	day1 := time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC).UnixNano()
	day2 := day1 + int64(2*time.Hour) // 01:00 the next day
	h.clock = day1
	for _, line := range []string{
		`cmd kind=thread.create new=a provider=claude caps=all title=alpha`,
		`cmd kind=thread.create new=b provider=codex caps=all`,
		`cmd kind=message.send thread=a text=one`,
		`obs kind=llm thread=a run=a/1 attempt=a/1/a1 key=k1 in=100 out=10 cost=0.5`,
		`obs kind=llm thread=a run=a/1 attempt=a/1/a1 key=k2 in=50 out=5 cost=0.25`,
		`obs kind=turn.ended thread=a run=a/1 attempt=a/1/a1 status=completed`,
		`cmd kind=message.send thread=b text=one`,
		`obs kind=llm thread=b run=b/1 attempt=b/1/a1 key=k1 in=7 out=3 nocost=true`,
		`obs kind=turn.ended thread=b run=b/1 attempt=b/1/a1 status=completed`,
	} {
		h.do(t, line)
	}
	h.clock = day2
	h.do(t, `cmd kind=message.send thread=a text=two`)
	h.do(t, `obs kind=llm thread=a run=a/2 attempt=a/2/a1 key=k3 in=1 out=1 cost=1`)

	rep := SumUsage(h.st, 0)
	if rep.Total.TokensIn != 158 || rep.Total.TokensOut != 19 || rep.Total.CostUSD != 1.75 || !rep.Total.CostUnknown || rep.Total.Runs != 3 {
		t.Fatalf("total = %+v", rep.Total)
	}
	if len(rep.Threads) != 2 || rep.Threads[0].Thread != "a" || rep.Threads[0].Title != "alpha" {
		t.Fatalf("threads = %+v", rep.Threads)
	}
	for _, row := range rep.Threads {
		th := h.st.Threads[row.Thread]
		if row.TokensIn != th.TokensIn || row.TokensOut != th.TokensOut || row.CostUSD != th.CostUSD || row.CostUnknown != th.NoCost {
			t.Errorf("thread %s row %+v does not match the thread's totals %d/%d/%g", row.Thread, row.Usage, th.TokensIn, th.TokensOut, th.CostUSD)
		}
	}
	if len(rep.Providers) != 2 || rep.Providers[0].Provider != "claude" || rep.Providers[0].CostUSD != 1.75 || rep.Providers[1].CostUnknown != true {
		t.Fatalf("providers = %+v", rep.Providers)
	}
	if len(rep.Days) != 2 || rep.Days[0].Day != "2026-03-01" || rep.Days[0].Runs != 2 || rep.Days[1].Day != "2026-03-02" || rep.Days[1].CostUSD != 1 {
		t.Fatalf("days = %+v", rep.Days)
	}
	since := SumUsage(h.st, day2)
	if since.Total.Runs != 1 || since.Total.CostUSD != 1 || len(since.Threads) != 1 || len(since.Days) != 1 {
		t.Fatalf("since day 2 = %+v", since)
	}
}
