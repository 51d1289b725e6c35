package tui

import "charm.land/bubbles/v2/key"

// KeyMap is the one table of keys. The help dialog is generated from it,
// and Update matches against it; no key is hard-coded anywhere else.
//
// Keys are chosen so that ordinary terminals, tmux and ssh deliver them:
// ctrl+letter combinations that are not terminal controls once Bubble Tea
// puts the tty in raw mode (ctrl+q and ctrl+s lose their flow-control
// meaning then), alt+letter as an alternative for terminals that keep
// ctrl+q for themselves, and no ctrl+shift combinations.
type KeyMap struct {
	// Everywhere.
	Quit       key.Binding
	Help       key.Binding
	NewThread  key.Binding
	Answer     key.Binding
	Palette    key.Binding
	FocusNext  key.Binding
	FocusPrev  key.Binding
	PageUp     key.Binding
	PageDown   key.Binding
	NextThread key.Binding
	PrevThread key.Binding
	Interrupt  key.Binding
	Resume     key.Binding
	Fork       key.Binding
	Switch     key.Binding
	Rollback   key.Binding
	Worktree   key.Binding
	Usage      key.Binding
	// Missions opens the missions view (mission_view.go).
	Missions key.Binding
	// Team opens the team dialog: the hub's projects by host (team.go).
	Team key.Binding
	// The selected thread and the list (thread_manage.go).
	RenameThread  key.Binding
	ArchiveThread key.Binding
	SortThreads   key.Binding
	WiderLeft     key.Binding
	NarrowerLeft  key.Binding
	TallerTodos   key.Binding
	ShorterTodos  key.Binding
	CancelDialog  key.Binding

	// Composer.
	Send        key.Binding
	Queue       key.Binding
	Restart     key.Binding
	Newline     key.Binding
	ClearDraft  key.Binding
	HistoryPrev key.Binding
	HistoryNext key.Binding
	Leave       key.Binding

	// Threads list and transcript, when not typing.
	Up       key.Binding
	Down     key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Filter   key.Binding
	Open     key.Binding
	Toggle   key.Binding
	QuitIdle key.Binding
	HelpIdle key.Binding

	// Grid view.
	Grid      key.Binding
	GridLeft  key.Binding
	GridRight key.Binding
	GridZoom  key.Binding
	GridBack  key.Binding

	// Terminal panes (threads whose provider runs a PTY).
	TermZoom   key.Binding
	TermToggle key.Binding
	TermLeave  key.Binding
	// The terminal's scrollback: the page keys never reach the program;
	// top and bottom are the scrollback's only while scrolled back.
	TermScrollUp, TermScrollDown, TermScrollTop, TermScrollBottom key.Binding

	// A waiting request in the composer area (request_box.go): a digit
	// answers, RequestDraft switches to the draft and back, the scroll
	// keys move through a long command or diff.
	AnswerDigit                        key.Binding
	RequestDraft                       key.Binding
	RequestScrollUp, RequestScrollDown key.Binding

	// Confirm dialogs (y/n) and forms.
	Allow     key.Binding
	Deny      key.Binding
	Confirm   key.Binding
	NextField key.Binding
	PrevField key.Binding
	// ToggleOption switches a dialog's option: the new thread and fork
	// dialogs' own worktree.
	ToggleOption key.Binding

	// Rollback dialog, once enter chose the run.
	RollbackConfirm key.Binding
	RollbackBack    key.Binding
	RollbackMark    key.Binding

	// Diff view: Diff opens it from anywhere but a terminal pane (and
	// closes it, as CancelDialog does); it scrolls with Up, Down, PageUp,
	// PageDown, Top and Bottom.
	Diff key.Binding
	// StopHost answers the quit dialog of a client UI: stop the host too.
	StopHost key.Binding
	// The diff view owns its keys: it has no composer to type into.
	ViewUp, ViewDown, ViewTop, ViewBottom key.Binding

	// Reading and finding (copy.go, search.go, editor.go): Copy puts
	// what is at the transcript cursor (or the diff) on the clipboard;
	// Search opens the transcript's search box, where SearchNext and
	// SearchPrev move between matches; EditDraft composes the draft in
	// $EDITOR; OpenEditor opens the diff, or the file of the step at the
	// cursor, in $EDITOR.
	Copy, Search, SearchNext, SearchPrev, EditDraft, OpenEditor key.Binding
}

func bind(help string, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// DefaultKeyMap returns the keys nexus ships with.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:          bind("ctrl+c", "clear the draft, else quit (asks if work is live)", "ctrl+c"),
		Help:          bind("f1", "this help", "f1"),
		NewThread:     bind("ctrl+n", "new thread", "ctrl+n"),
		Answer:        bind("ctrl+o", "jump to the oldest waiting request (any thread)", "ctrl+o"),
		Palette:       bind("ctrl+k", "command palette: every action and thread", "ctrl+k"),
		FocusNext:     bind("tab", "next pane", "tab"),
		FocusPrev:     bind("shift+tab", "previous pane", "shift+tab"),
		PageUp:        bind("pgup", "scroll the transcript up a page", "pgup"),
		PageDown:      bind("pgdown", "scroll the transcript down a page", "pgdown"),
		NextThread:    bind("alt+down", "next thread", "alt+down"),
		PrevThread:    bind("alt+up", "previous thread", "alt+up"),
		Interrupt:     bind("ctrl+x", "interrupt the selected thread's active run", "ctrl+x"),
		Resume:        bind("ctrl+y", "resume the run a host restart interrupted", "ctrl+y"),
		Fork:          bind("ctrl+t", "fork the selected thread at a completed run", "ctrl+t"),
		Switch:        bind("ctrl+p", "switch the selected thread's provider", "ctrl+p"),
		Rollback:      bind("ctrl+z", "roll the selected thread's workspace back to a run", "ctrl+z"),
		Worktree:      bind("ctrl+l/alt+w", "the thread's worktree: diff, commit, merge, archive", "ctrl+l", "alt+w"),
		Usage:         bind("alt+u/alt+$", "cost view: tokens and cost per thread, provider, day", "alt+u", "alt+$"),
		Missions:      bind("f3/alt+i", "missions: task graph; approve, retry, vote, stop", "f3", "alt+i"),
		Team:          bind("f4/alt+h", "team: every host's threads on the hub; open one", "f4", "alt+h"),
		RenameThread:  bind("f2", "rename the selected thread", "f2"),
		ArchiveThread: bind("alt+a", "archive the selected thread (asks first)", "alt+a"),
		SortThreads:   bind("alt+s", "order the list: created, needs me, repo, recent", "alt+s"),
		WiderLeft:     bind("ctrl+right", "widen the left column (kept for next time)", "ctrl+right"),
		NarrowerLeft:  bind("ctrl+left", "narrow the left column", "ctrl+left"),
		TallerTodos:   bind("ctrl+up", "grow the todos pane (kept for next time)", "ctrl+up"),
		ShorterTodos:  bind("ctrl+down", "shrink the todos pane", "ctrl+down"),
		CancelDialog:  bind("esc", "close the dialog", "esc"),

		Send:        bind("enter", "send (mode auto: start, or steer the active run)", "enter"),
		Queue:       bind("ctrl+q/alt+q", "send as a new run queued after the active one", "ctrl+q", "alt+q"),
		Restart:     bind("ctrl+r/alt+r", "send and restart the active run with it", "ctrl+r", "alt+r"),
		Newline:     bind("alt+enter/ctrl+j", "new line", "alt+enter", "ctrl+j", "shift+enter"),
		ClearDraft:  bind("ctrl+u", "clear the whole draft (up brings it back)", "ctrl+u"),
		HistoryPrev: bind("up", "previous sent message (when the input is empty)", "up"),
		HistoryNext: bind("down", "next sent message", "down"),
		Leave:       bind("esc", "leave the input (typing comes back)", "esc"),

		Up:       bind("up", "move up (threads, transcript steps)", "up"),
		Down:     bind("down", "move down", "down"),
		Top:      bind("home", "first thread / top of transcript", "home"),
		Bottom:   bind("end", "last thread / follow the transcript", "end"),
		Filter:   bind("alt+k", "filter the thread list by name", "alt+k"),
		Open:     bind("enter", "write to the selected thread", "enter"),
		Toggle:   bind("enter", "open or close the run, step or message at the cursor", "enter"),
		QuitIdle: bind("q", "close this (help, confirm dialogs)", "q"),
		HelpIdle: bind("?", "this help (grid)", "?"),

		Grid:      bind("ctrl+g", "grid of 2/4/6/9 threads: open, cycle the size", "ctrl+g"),
		GridLeft:  bind("left/h", "previous cell", "left", "h"),
		GridRight: bind("right/l", "next cell", "right", "l"),
		GridZoom:  bind("enter", "zoom into the thread (the normal view)", "enter"),
		GridBack:  bind("esc", "zoomed: back to the grid; grid: normal view", "esc"),

		TermZoom:   bind("ctrl+f", "zoom the terminal to the whole screen", "ctrl+f"),
		TermToggle: bind("ctrl+s", "terminal or transcript (ACP: its last command's)", "ctrl+s"),
		TermLeave:  bind("ctrl+]", "leave the terminal; zoomed: back to normal view", "ctrl+]"),

		TermScrollUp:     bind("shift+pgup", "scroll the terminal back a page (the wheel too)", "shift+pgup"),
		TermScrollDown:   bind("shift+pgdown", "scroll the terminal forward a page", "shift+pgdown"),
		TermScrollTop:    bind("shift+home", "scrolled back: the oldest line kept", "shift+home"),
		TermScrollBottom: bind("shift+end", "scrolled back: the bottom (so does typing into it)", "shift+end"),

		AnswerDigit:       bind("1-9", "answer with the numbered choice", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		RequestDraft:      bind("alt+m", "the composer area: the request or your draft", "alt+m"),
		RequestScrollUp:   bind("shift+up", "scroll a long command or diff up", "shift+up"),
		RequestScrollDown: bind("shift+down", "scroll a long command or diff down", "shift+down"),

		Allow:        bind("y", "yes", "y", "Y"),
		Deny:         bind("n", "no", "n", "N"),
		Confirm:      bind("enter", "confirm / submit the answer", "enter"),
		NextField:    bind("tab", "next field", "tab", "down"),
		PrevField:    bind("shift+tab", "previous field", "shift+tab", "up"),
		ToggleOption: bind("space", "on the Worktree field: own git worktree on/off", "space"),

		RollbackConfirm: bind("enter/y", "choose the run; then again: roll back now", "enter", "y", "Y"),
		RollbackBack:    bind("esc/n", "not now: back to the list; from the list: close", "esc", "n", "N"),
		RollbackMark:    bind("m", "mark the workspace now (a point to come back to)", "m", "M"),
		StopHost:        bind("s", "quit dialog: stop the background host too", "s", "S"),

		Diff:       bind("ctrl+d", "diff of the transcript cursor's run, else the latest", "ctrl+d"),
		ViewUp:     bind("up/k", "scroll up a line", "up", "k"),
		ViewDown:   bind("down/j", "scroll down a line", "down", "j"),
		ViewTop:    bind("home/g", "top", "home", "g"),
		ViewBottom: bind("end/G", "bottom", "end", "G"),

		Copy:       bind("alt+y", "copy what is at the cursor, or the diff", "alt+y"),
		Search:     bind("alt+/ or ctrl+/", "search the transcript", "alt+/", "ctrl+/", "ctrl+_"),
		SearchNext: bind("enter/down", "next match (wraps)", "enter", "down", "ctrl+n"),
		SearchPrev: bind("up", "previous match (wraps)", "up", "ctrl+p"),
		EditDraft:  bind("alt+e", "write the draft in $EDITOR", "alt+e"),
		OpenEditor: bind("alt+o", "open the diff or a step's file in $EDITOR", "alt+o"),
	}
}

// helpAs is b as the help lists it in one context: the same keys, with
// what they do there (up in the grid moves between cells, not threads).
func helpAs(b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
}

// keyGroup is a titled section of the help dialog.
type keyGroup struct {
	title    string
	bindings []key.Binding
}

// groups lists every binding under the context it works in.
func (k KeyMap) groups() []keyGroup {
	return []keyGroup{
		{"Everywhere", []key.Binding{k.Quit, k.Help, k.NewThread, k.Answer, k.Palette, k.FocusNext, k.FocusPrev,
			k.PageUp, k.PageDown, k.NextThread, k.PrevThread, k.Interrupt, k.Resume, k.Fork, k.Switch, k.Rollback, k.Worktree, k.Usage, k.Missions, k.Team, k.Grid,
			k.WiderLeft, k.NarrowerLeft, k.TallerTodos, k.ShorterTodos}},
		{"The selected thread and the list", []key.Binding{k.RenameThread, k.ArchiveThread, k.SortThreads}},
		{"Composer", []key.Binding{k.Send, k.Queue, k.Restart, k.Newline, k.ClearDraft, k.HistoryPrev, k.HistoryNext, k.Leave}},
		{"Threads and transcript (a printable key types into the composer)", []key.Binding{k.Up, k.Down, k.Top, k.Bottom,
			k.Filter, helpAs(k.Open, "threads: write to it · transcript: open/close a step")}},
		{"Terminal pane (tab into it: keys go to the program)", []key.Binding{k.TermZoom, k.TermToggle,
			k.TermLeave, k.TermScrollUp, k.TermScrollDown, k.TermScrollTop, k.TermScrollBottom}},
		{"Grid view", []key.Binding{k.GridLeft, k.GridRight, helpAs(k.Up, "cell above"), helpAs(k.Down, "cell below"),
			k.GridZoom, k.GridBack, k.HelpIdle}},
		{"A waiting request (in the composer area)", []key.Binding{k.AnswerDigit, k.RequestDraft,
			k.RequestScrollUp, k.RequestScrollDown, helpAs(k.Confirm, "send a typed answer"),
			helpAs(k.CancelDialog, "typing an answer: back to the choices")}},
		{"Rollback dialog", []key.Binding{helpAs(k.Up, "previous run or mark"), helpAs(k.Down, "next run or mark"),
			k.RollbackConfirm, k.RollbackBack, k.RollbackMark}},
		{"New thread and fork dialogs", []key.Binding{k.NextField, k.PrevField, k.ToggleOption, k.Confirm, k.CancelDialog}},
		{"Worktree dialog", []key.Binding{helpAs(k.Confirm, "diff, commit, merge or archive (or d, c, m, a)"),
			helpAs(k.Newline, "commit message: new line"), helpAs(k.Allow, "merge, archive: go ahead")}},
		{"Quit dialog", []key.Binding{helpAs(k.Allow, "quit"), k.StopHost, helpAs(k.Deny, "stay")}},
		{"Cost view", []key.Binding{k.ViewUp, k.ViewDown, helpAs(k.CancelDialog, "close the cost view")}},
		{"Diff of a run (opens from any pane but a terminal)", []key.Binding{k.Diff, k.ViewUp, k.ViewDown,
			helpAs(k.PageUp, "scroll the diff up a page"), helpAs(k.PageDown, "scroll the diff down a page"),
			k.ViewTop, k.ViewBottom, helpAs(k.CancelDialog, "close the diff")}},
		{"Reading and finding", []key.Binding{k.Copy, k.Search, k.SearchNext, k.SearchPrev,
			helpAs(k.CancelDialog, "close the search box"), k.EditDraft, k.OpenEditor}},
	}
}
