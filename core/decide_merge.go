package core

import (
	"fmt"
	"sort"
	"strings"
)

// mergeBack records a merge_back ContextTransfer from a thread (usually a
// fork) into another and returns its id. The delta is built now, from the
// journal: decisions and conclusions (the replies), files changed (from
// the runs' checkpoints, with line counts; from the agent's write steps
// for a run whose checkpoint lists none), commands run with their exit
// codes, and open questions. No transcript noise: no chatter, no tool
// output.
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
	files := mergeFiles{}
	var commands, questions, conclusions []string
	for _, r := range runs {
		if line := conclusion(r); line != "" {
			conclusions = append(conclusions, fmt.Sprintf("run %d (%s): %s", r.Ordinal, r.Status, line))
		}
		cp := t.st.Checkpoints[CheckpointID(from.ID, RunScope(r.Ordinal))]
		fromCheckpoint := cp != nil && cp.Status == CkReady && (len(cp.Files) > 0 || cp.MoreFiles > 0)
		if fromCheckpoint {
			files.addCheckpoint(cp)
		}
		a := t.st.CurrentAttempt(r)
		if a == nil {
			continue
		}
		for _, n := range t.st.NodesOf(a.ID) {
			switch {
			case n.Kind == NodeWorkerStep && (n.Action == "write_file" || n.Action == "edit_file") && n.Status == NodeCompleted:
				if !fromCheckpoint {
					files.addStep(strings.TrimPrefix(n.Title, n.Action+" "), n.Action)
				}
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
	section("Files changed", files.lines())
	section("Commands and tests run", commands)
	section("Open questions", questions)
	n := 1
	for _, tr := range t.st.Transfers {
		if tr.To == to.ID && tr.Kind == TransferMergeBack {
			n++
		}
	}
	tr := Transfer{ID: fmt.Sprintf("%s/merge%d", to.ID, n), Kind: TransferMergeBack, From: from.ID, To: to.ID,
		Run: len(runs), Status: TransferResolved, Text: b.String()}
	t.emit(EvTransferUpdated, Event{Thread: to.ID, Correlation: tr.ID, Payload: Payload{Transfer: &tr}})
	return tr.ID
}

// mergeFiles gathers the files a fork's runs changed, by path: from the
// runs' checkpoints (stats summed across runs, the latest status kept,
// except that a file the fork added stays added) or, for a run whose
// checkpoint lists no file (no workspace, stats not recorded, or a
// journal older than checkpoint file lists), from its write steps.
type mergeFiles struct {
	stats map[string]*FileChange
	steps map[string][]string
	more  int
}

func (m *mergeFiles) addCheckpoint(cp *Checkpoint) {
	if m.stats == nil {
		m.stats = map[string]*FileChange{}
	}
	m.more += cp.MoreFiles
	for _, f := range cp.Files {
		cur := m.stats[f.Path]
		if cur == nil {
			c := f
			m.stats[f.Path] = &c
			continue
		}
		cur.Status = laterStatus(cur.Status, f.Status)
		cur.Added += f.Added
		cur.Deleted += f.Deleted
		cur.Binary = cur.Binary || f.Binary
	}
}

// laterStatus is a file's status over two runs, as the thread merged
// into sees it: the later run's, except that a file the fork added stays
// added (and is "AD" once deleted again), and a file deleted and then
// added back was modified.
func laterStatus(prev, next string) string {
	switch {
	case prev == "A" && next == "D":
		return "AD"
	case prev == "AD" && next == "A", prev == "A":
		return "A"
	case prev == "D" && next == "A":
		return "M"
	}
	return next
}

func (m *mergeFiles) addStep(path, action string) {
	if m.steps == nil {
		m.steps = map[string][]string{}
	}
	m.steps[path] = append(m.steps[path], action)
}

// lines renders one line per file, sorted: "a.txt (modified, +3 -1)",
// "b.txt (added, +10)", "c.txt (deleted, -4)", "p.png (added, binary)",
// "d.txt (write_file, edit_file)" for a file known only from steps.
func (m *mergeFiles) lines() []string {
	var out []string
	for path, f := range m.stats {
		out = append(out, fmt.Sprintf("%s (%s)", path, describeChange(f)))
	}
	for path, acts := range m.steps {
		if m.stats[path] == nil {
			out = append(out, fmt.Sprintf("%s (%s)", path, strings.Join(acts, ", ")))
		}
	}
	sort.Strings(out)
	if m.more > 0 {
		out = append(out, fmt.Sprintf("and %d more file(s) the checkpoints do not list", m.more))
	}
	return out
}

// fileStatusWords name FileChange statuses in merge-back text; "AD" is a
// file the fork added and deleted again.
var fileStatusWords = map[string]string{"A": "added", "M": "modified", "D": "deleted", "T": "type changed",
	"AD": "added, then deleted"}

func describeChange(f *FileChange) string {
	parts := []string{orDefault(fileStatusWords[f.Status], f.Status)}
	switch {
	case f.Binary:
		parts = append(parts, "binary")
	case f.Added > 0 && f.Deleted > 0:
		parts = append(parts, fmt.Sprintf("+%d -%d", f.Added, f.Deleted))
	case f.Added > 0:
		parts = append(parts, fmt.Sprintf("+%d", f.Added))
	case f.Deleted > 0:
		parts = append(parts, fmt.Sprintf("-%d", f.Deleted))
	}
	return strings.Join(parts, ", ")
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
		if old == "" && c.ForkOf != "" {
			old = "forked from " + c.ForkOf
		}
		t.emit(EvProviderThread, Event{Thread: r.Thread, Correlation: r.ID, Payload: Payload{ProviderThread: &c}})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The %s conversation %s could not be resumed; a new one starts from this history:\n", th.Provider, old)
	for _, m := range t.st.Context(th.ID, r.Ordinal) {
		b.WriteString(m.Role + ": " + m.Text + "\n")
	}
	h := Handoff{ID: th.ID + "/handoff" + itoa(len(t.st.Handoffs)+1), Thread: th.ID, From: th.Provider + ":" + old,
		To: th.Provider, Strategy: HandoffFullSummary, Text: b.String()}
	t.emit(EvHandoffRecorded, Event{Thread: th.ID, Run: r.ID, Correlation: r.ID, Payload: Payload{Handoff: &h}})
}
