package core

import (
	"fmt"
	"sort"
	"strings"
)

// mergeBack records a merge_back ContextTransfer from a thread (usually a
// fork) into another and returns its id. The delta is built now, from the
// journal: decisions and conclusions (the replies), files changed (by the
// agent's write steps or tool calls), commands run with their exit codes,
// and open questions. No transcript noise: no chatter, no tool output.
func (t *tx) mergeBack(to, from *Thread) string {
	var runs []*Run
	for _, r := range t.st.RunsOf(from.ID) {
		if r.Status == RunCompleted || r.Status == RunFailed || r.Status == RunInterrupted {
			runs = append(runs, r)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Merge-back from thread %s (%q)", from.ID, from.Title)
	if from.ForkedFrom == to.ID {
		fmt.Fprintf(&b, ", forked from this thread at run %d", from.ForkRun)
	}
	fmt.Fprintf(&b, ": %d run(s).\n", len(runs))
	files := map[string][]string{}
	var commands, questions, conclusions []string
	for _, r := range runs {
		if line := conclusion(r); line != "" {
			conclusions = append(conclusions, fmt.Sprintf("run %d (%s): %s", r.Ordinal, r.Status, line))
		}
		a := t.st.CurrentAttempt(r)
		if a == nil {
			continue
		}
		for _, n := range t.st.NodesOf(a.ID) {
			switch {
			case n.Kind == NodeWorkerStep && (n.Action == "write_file" || n.Action == "edit_file") && n.Status == NodeCompleted:
				path := strings.TrimPrefix(strings.TrimPrefix(n.Title, n.Action+" "), "")
				files[path] = append(files[path], n.Action)
			case n.Kind == NodeWorkerStep && n.Action == "run_command":
				commands = append(commands, fmt.Sprintf("%s: exit code %d", strings.TrimPrefix(n.Title, "run_command "), n.Exit))
			case n.Kind == NodeToolCall && n.Status == NodeCompleted:
				commands = append(commands, n.Title)
			}
		}
		for _, q := range t.st.RequestsOf(r.ID) {
			if q.Status == RequestPending || (q.Kind == RequestUserInput && q.Answer == "") {
				questions = append(questions, q.Prompt)
			}
		}
	}
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString(title + ":\n")
		for _, it := range items {
			b.WriteString("- " + it + "\n")
		}
	}
	section("Decisions and conclusions", conclusions)
	var changed []string
	for path, acts := range files {
		changed = append(changed, fmt.Sprintf("%s (%s)", path, strings.Join(acts, ", ")))
	}
	sort.Strings(changed)
	section("Files changed", changed)
	section("Commands and tests run", commands)
	section("Open questions", questions)
	n := 1
	for _, tr := range t.st.Transfers {
		if tr.To == to.ID && tr.Kind == "merge_back" {
			n++
		}
	}
	tr := Transfer{ID: fmt.Sprintf("%s/merge%d", to.ID, n), Kind: "merge_back", From: from.ID, To: to.ID,
		Run: len(runs), Status: "resolved", Text: b.String()}
	t.emit(EvTransferUpdated, Event{Thread: to.ID, Correlation: tr.ID, Payload: Payload{Transfer: &tr}})
	return tr.ID
}

// conclusion is the first meaningful line of a run's reply.
func conclusion(r *Run) string {
	for _, l := range strings.Split(r.Reply, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "[sim] acted on") {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return l
		}
	}
	return ""
}

// resumeFailed records that a provider could not resume its thread by its
// native ref: the old provider thread is marked unavailable, and the
// replacement gets the thread's history as a full_thread_summary handoff,
// journaled so the user sees exactly what the new session was given.
func (t *tx) resumeFailed(r *Run, a *Attempt, o *Observation) {
	th := t.st.Threads[r.Thread]
	t.emit(EvRuntimeWarning, Event{Thread: r.Thread, Run: r.ID, Attempt: a.ID, Correlation: r.ID, Payload: Payload{Note: o.Text}})
	old := ""
	if pt := t.st.ProviderThreads[r.Thread+"/"+th.Provider]; pt != nil && pt.Available {
		c := *pt
		c.Available = false
		old = c.NativeRef
		t.emit(EvProviderThread, Event{Thread: r.Thread, Correlation: r.ID, Payload: Payload{ProviderThread: &c}})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The %s conversation %s could not be resumed; a new one starts from this history:\n", th.Provider, old)
	for _, m := range t.st.Context(th.ID, r.Ordinal) {
		b.WriteString(m.Role + ": " + m.Text + "\n")
	}
	h := Handoff{ID: th.ID + "/handoff" + itoa(len(t.st.Handoffs)+1), Thread: th.ID, From: th.Provider + ":" + old,
		To: th.Provider, Strategy: "full_thread_summary", Text: b.String()}
	t.emit(EvHandoffRecorded, Event{Thread: th.ID, Run: r.ID, Correlation: r.ID, Payload: Payload{Handoff: &h}})
}
