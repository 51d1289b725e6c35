package host

import (
	"context"
	"errors"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// Watch calls check with the host's state now and again after each
// change that can alter its answer, until check reports done (Watch
// returns nil), ctx ends or the kernel stops (their error). A change is
// a client connecting or leaving (api.Server.ConnsChanged), a journaled
// event (a Runner subscription keeps Watch's own copy of the state; live
// deltas do not wake check), or recheck elapsing: a check that needs the
// passing of time (a linger period) asks for one call after that long,
// 0 for none. Nothing polls: a host with no clients and no events
// wakes once every watchFailsafe, a recheck that keeps a wake-up lost to
// a bug from holding a background host (and whatever waits for it to
// exit) forever.
//
// check runs on Watch's goroutine and must not block; st is Watch's
// own and must not be kept.
func (h *Host) Watch(ctx context.Context, check func(st *core.State) (done bool, recheck time.Duration)) error {
	for {
		sub, err := h.runner.Subscribe(ctx, 0)
		if err != nil {
			return err
		}
		err = h.watch(ctx, sub, check)
		if !errors.Is(err, core.ErrLagged) {
			return err
		}
	}
}

// watchFailsafe is the longest Watch sleeps without calling check.
const watchFailsafe = 30 * time.Second

// watch is Watch over one subscription; it returns core.ErrLagged when
// the subscription fell behind (Watch subscribes again).
func (h *Host) watch(ctx context.Context, sub *core.Subscription, check func(*core.State) (bool, time.Duration)) error {
	st := sub.State
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		changed := h.srv.ConnsChanged()
		done, recheck := check(st)
		if done {
			return nil
		}
		var fire <-chan time.Time
		if timer != nil {
			timer.Stop()
		}
		if recheck <= 0 || recheck > watchFailsafe {
			recheck = watchFailsafe
		}
		timer = time.NewTimer(recheck)
		fire = timer.C
	wait:
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-h.dead:
				return core.ErrStopped
			case <-changed:
				break wait
			case <-fire:
				break wait
			case ev, ok := <-sub.Events:
				if !ok {
					return sub.Err()
				}
				if ev.Seq == 0 {
					continue // a live delta: nothing check reads
				}
				if err := st.Apply(&ev); err != nil {
					return core.ErrLagged // read the state afresh
				}
				if len(sub.Events) == 0 {
					break wait // a burst is checked once, at its end
				}
			}
		}
	}
}
