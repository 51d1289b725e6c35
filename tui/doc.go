// Package tui is the full-screen terminal UI of nexus: a Bubble Tea v2
// program over a Backend (the in-process core.Runner of a host, or an
// api.Client of a host that runs elsewhere; both satisfy core.Backend).
//
// # Who may import what
//
// tui imports core (domain types, commands, State.Apply) and themes, and
// the Charm stack, including github.com/charmbracelet/x/vt (the terminal
// emulator of the PTY panes) and ultraviolet (the key type vt encodes).
// It never imports store, providers or workers
// (deps_test.go enforces it): provider profiles for the new-thread dialog
// come in through Options.Profiles. Only package main wires a backend in.
//
// # Structure
//
//   - Run (run.go) builds the Model and the program, starts the bridge
//     goroutine and waits for both.
//   - The bridge (bridge.go) is the only goroutine that reads the
//     subscription. It batches events for at most one frame (16 ms) and
//     sends one frameMsg with program.Send: journaled events (must arrive,
//     in order) apart from live deltas (droppable, coalesced per node into
//     "text streamed beyond the journal"). A journaled node.text takes its
//     prefix off the live text, so nothing shows twice. On core.ErrLagged it
//     resubscribes from the last seq at once; when the host is gone it shows
//     a banner and retries with backoff, so a client reattaches to a
//     restarted host. Nothing is sent while nothing happens: no polling.
//   - Model (model.go) is the root: focus (a typed enum), the layout
//     (rectangles computed on resize and when a pane's wanted height
//     changes, in layout.go), the dialog stack (dialogs.go,
//     dialog_forms.go; dialogs return typed actions the root carries out),
//     and a private core.State to which it applies journaled events with
//     State.Apply. A gap makes it ask the bridge for a fresh snapshot.
//   - Panes are plain render functions over the model: threads.go,
//     conversation.go, run_view.go and node_view.go (the transcript: a
//     tree of runs and nodes with a fold cursor, cursor.go; run_files.go
//     the files each run's checkpoint changed), todos.go,
//     composer.go, status.go (banner, spinner and status line), grid.go
//     (the multi-agent grid). Every pane returns lines of exactly its
//     width, and render lays them side by side row by row.
//   - diff_view.go is the diff view (ctrl+d): one run's unified diff
//     over the whole screen but the banner and the status line, fetched
//     through Options.Diff by a tea.Cmd (see the decisions below).
//   - dialog_forms.go (approval, question, new thread), dialog_pick.go
//     (fork, switch provider) and dialog_rollback.go (roll back to a run,
//     a mark or a subagent that changed files: a pick list with a preview
//     of what changes, and a second enter; m marks the workspace now; the
//     rollback's outcome in the status line and the transcript) are the
//     dialogs; dialogs.go has the stack, help and quit.
//   - prefs.go keeps the pane proportions the person chose in
//     STATE_DIR/tui.json (read by Run before the program starts, written
//     by a Cmd, atomically, newest wins).
//   - submit.go turns intents into tea.Cmds that capture the backend and the
//     command by value. Update and View never block and never do I/O; even
//     the new thread's workspace is checked inside the Cmd. Every timer
//     (flash, spinner, ages) goes through Model.after so tests see them.
//   - Terminal panes (term*.go) show the PTY of a thread whose provider
//     has one (Caps.PTY: the shell provider), or on request the terminal
//     of a thread's agent (an ACP agent's last command), when the Backend
//     is also a core.Terminals. term.go is the model's side: which threads are
//     attached (syncTerms, after every Update), zoom, keys, why a thread
//     shows no terminal. term_pane.go is one attached terminal: a
//     vt.SafeEmulator and its goroutines; term_feed.go the reader (feed
//     into the emulator), term_input.go the drain (the emulator's reply
//     pipe) and the sender (keys, pastes, sizes to the host);
//     term_view.go draws a pane, the zoom and the notices.
//
// Goroutines: the Bubble Tea event loop owns the Model; the bridge owns the
// subscription and talks to the loop only through program.Send; submit
// Cmds run on Bubble Tea's command goroutines and report back as messages.
// Each attached terminal has three goroutines, all ended by the pane's
// context (its own, under the Model's):
//
//   - the reader calls AttachTerminal, writes each chunk into the
//     emulator (a Reset first resets it, RIS, and takes the PTY's size to
//     replay, then the pane's), and after each burst (at most a frame of
//     chunks) publishes a snapshot of the screen and sends termDirtyMsg
//     only if the previous one was handled (an atomic flag the handler
//     clears): one message per frame at most, however busy the child.
//     Its OS thread runs at niceness 19 on Linux (term_nice_linux.go;
//     $NEXUS_TERM_NICE sets 0-19, 0 for normal priority): emulating a
//     flood costs a core, which must not come from the program in the
//     terminal (BenchmarkPTYPane). It stops between writes when its
//     context ends, so a pane far behind never holds up the exit;
//   - the drain reads the emulator's reply pipe all the time into a
//     bounded outbox, so the emulator never waits on its answers to the
//     child's queries (cursor position, attributes);
//   - the sender encodes keys and pastes through the emulator (SendKey,
//     Paste: the child's modes decide the bytes), writes the outbox with
//     TerminalInput in order, and applies sizes (emulator, then
//     ResizeTerminal, only when a size changed).
//
// Update only starts panes, cancels their contexts, stores sizes in
// atomics and queues keys with non-blocking sends (a full queue drops
// the key and the pane says input was dropped). View draws the published
// snapshot and never takes the emulator's lock. So a flooding or stuck
// terminal (a TerminalInput that never returns) slows neither the UI nor
// another pane. Run cancels and waits for the bridge and the panes
// before it returns.
//
// # Keys
//
// One KeyMap (keys.go) is the source of every key and of the help dialog
// (f1 everywhere, ? when not typing):
//
//	ctrl+c        quit (asks first while runs are active)
//	ctrl+n        new thread dialog (provider profile, title, workspace)
//	ctrl+o        open the oldest approval or question waiting for you
//	ctrl+y        resume the selected thread's run a host restart interrupted
//	ctrl+t        fork the selected thread at a completed run (dialog)
//	ctrl+p        switch the selected thread's provider (dialog)
//	ctrl+z        roll the selected thread's workspace back to a run, a
//	              mark (listed above the run it follows) or a subagent
//	              that changed files (below its run) (dialog: enter picks,
//	              enter or y again rolls back, esc or n goes back to the
//	              list, m marks the workspace as it is now)
//	ctrl+d        the unified diff of the run at the transcript cursor
//	              (else the thread's latest run with a ready checkpoint);
//	              up/down, pgup/pgdown, home/end (g/G, j/k, the wheel)
//	              scroll it, esc or ctrl+d again closes it
//	ctrl+g        grid view of 2, 4, 6 or 9 threads; again cycles the size
//	ctrl+left/right  narrow/widen the left column (kept in tui.json)
//	ctrl+up/down  grow/shrink the todos pane (kept in tui.json)
//	tab/shift+tab move focus: threads -> transcript -> composer
//	pgup/pgdown   scroll the transcript (the mouse wheel too)
//	alt+up/down   previous/next thread from any pane
//	ctrl+x        interrupt the selected thread's active run
//	enter         send, mode auto (start a run, or steer the active one;
//	              a provider that cannot steer restarts it)
//	ctrl+q, alt+q send as a new run queued after the active one
//	ctrl+r, alt+r send and restart the active run with it
//	alt+enter, ctrl+j, shift+enter   new line in the composer
//	up/down       composer history (when the input is empty)
//	esc           leave the composer; close a dialog; from a thread zoomed
//	              out of the grid, back to the grid
//	j/k, g/G, /, q, ?   lists and transcript when not typing
//	up/down, enter/space   transcript: move the cursor between runs and
//	              steps, open or close the one under it; i writes
//	arrows, enter, esc     grid: move, zoom into the thread, leave
//	y / a / n     allow once / allow always / deny in an approval dialog
//	ctrl+f        zoom the selected thread's terminal to the whole screen
//	ctrl+s        show the thread's terminal or its transcript (a PTY
//	              thread: its program; another, such as ACP: the terminal
//	              of its agent's last command)
//	ctrl+]        leave the focused terminal pane (to the composer); zoomed:
//	              detach back to the normal view
//
// A focused terminal pane (tab or a click into it) and the zoom send
// every key to the child, tab, ctrl+c, f1 and esc included, except
// ctrl+], the one way out: like telnet's escape, a raw tty and tmux
// deliver it (0x1d) and shells and editors leave it unbound. ctrl+f and
// ctrl+s work everywhere else; ctrl+f takes the composer's forward-char
// alias (right still moves) and ctrl+s is free once raw mode turns flow
// control off. Pastes go to the focused terminal, bracketed when the
// child asked for it. Keys the vt encoder does not know (cursor and
// editing keys with modifiers) are sent as xterm does (CSI 1;5D).
//
// ctrl+q and ctrl+r were picked because a raw-mode tty delivers them (flow
// control is off) and tmux passes them; alt+q and alt+r are there for
// terminals that still grab ctrl+q. ctrl+j is the one newline key every
// terminal sends distinctly from enter; alt+enter works in most. ctrl+y,
// ctrl+g and ctrl+p are free in the composer (its select-all and
// previous-line aliases are off); ctrl+t takes the composer's rarely used
// transpose, and ctrl+left/right its word moves (alt+left/right still
// move by words). ctrl+z is undo in most programs; the composer leaves
// it unbound, raw mode turns its suspend off so a tty delivers it (0x1a)
// and tmux passes it; nexus never suspends itself (a host TUI would
// stop its agents), and since the dialog asks twice before it rewrites a
// file, a ctrl+z pressed out of habit costs an esc. ctrl+d is EOF only
// in a cooked tty: raw mode delivers it (0x04) and tmux passes it. It
// takes the composer's delete-forward alias (delete still deletes), the
// thread filter keeps it, and a focused terminal pane sends it to the
// child, where it is EOF as the shell expects.
//
// # Decisions where the issue was silent
//
//   - Layout: threads (top) and todos (bottom) share the left column
//     (30% of the width, 22..40 cells), the transcript takes the rest, the
//     composer spans the full width under them and grows to 6 lines, the
//     status line is last. A one-line banner appears on top only while a
//     request waits or the host is lost. Below 40x12 the screen says so
//     instead of overlapping panes. The todos pane never takes focus.
//   - Initial focus is the composer when threads exist, else the threads
//     list. After creating a thread it is selected and the composer focused.
//   - The selection on start is the most recently updated thread. A thread
//     is unread (•) when it has journaled events after it was last shown.
//   - Only the current attempt's nodes are drawn; earlier attempts of a run
//     are one line each (number, reason, status). Tool output shows its
//     first 6 lines.
//   - The transcript follows the newest line until the person scrolls up;
//     scrolling back to the bottom (or G/end, or sending) follows again.
//     Each run is rendered once per change and width and cached; View only
//     slices the visible window, so long transcripts cost one screen.
//   - Quit asks for confirmation whenever a run is active, and says what
//     will happen: a host TUI stops the host (runs are interrupted and
//     resumable), a client leaves them running.
//   - A request dialog closes by itself if the request is answered
//     elsewhere. A failed or refused send puts the text back in the
//     composer and shows the reason in the status line.
//   - Agent and tool text is stripped of escape sequences and control
//     characters before it is drawn.
//   - The cursor does not blink. A spinner turns in the status line only
//     while runs are active (10 frames a second, one cell each); thread
//     ages are redrawn once a minute. Otherwise an idle screen writes
//     nothing to the terminal.
//   - The renderer runs at 120 frames a second (Run, frameRate): at
//     Bubble Tea's default 60 a key waits up to 16.7 ms for its frame,
//     more than the 16 ms p99 issue 4 asks. The renderer only writes when
//     the view changed; the price is its ticker's wakeups when idle
//     (measured in BENCHMARKS.md).
//   - The mouse is captured (cell motion) so the wheel scrolls the pane
//     under it and a click focuses a pane or selects a thread; most
//     terminals still select text with shift held.
//   - The todos pane shows the active run's list, else the latest run's
//     that has one; its title names the run. A subagent's own list is
//     indented under its line (PlanItem.Depth); a plan the agent proposed
//     (plan mode) follows under a "Proposed plan" line.
//   - A run a host restart interrupted says so in the transcript with the
//     resume key (ctrl+y, run.resume for the selected thread); its thread
//     shows "⏸ interrupted" until then.
//   - Thread badges, most urgent first: "◆ waiting for you" (an
//     approval), "✎ needs input" (a question), running, interrupted,
//     failed, "▣ live" (a PTY thread whose program is up, at its prompt),
//     done, new. The age on a thread's first row is the time since it
//     last changed.
//   - The transcript shows each run's wall time and the tokens and cost of
//     its model calls; each step its duration, exit code and cost. A tool
//     step's title carries its arguments (action and target); opened, the
//     whole title wraps and a model call lists every argument of the tools
//     it called. Lines of tool output that start with + or - (and diff
//     headers) take the theme's diff styles; the reply's prose does not,
//     since "- " there is a list.
//   - A run_command step's output is laid out by an x/vt emulator as
//     wide as the pane (cmd_output.go): carriage-return progress bars end
//     as their last state, backspaces and cursor moves apply, lines wrap
//     where a terminal would wrap them; colours are dropped. Its reply
//     pipe is closed first, so a query in the output never blocks a render.
//     The emulator is slow (5-10 ms for 16 KiB of redraws), so it runs
//     once per finished step and width (remembered), on output up to
//     16 KiB; while a step runs, each line shows what follows its last
//     carriage return.
//   - Folding: runs start open; tool output shows maxToolLines lines. Enter
//     on a step whose output was cut shows all of it; after that enter
//     closes and opens it. A closed run keeps its rule and the person's
//     text; a closed step its first line with how much is hidden. Fold
//     state is kept per run and node id for the session.
//   - The grid opens sized to fit the threads (at most 9 a page; the page
//     follows the cursor). Each cell shows the thread's badge, its pending
//     requests with their ids, and as much of the end of its transcript as
//     fits, rendered from its newest runs only. The cursor's thread is the
//     selected one, so ctrl+o, ctrl+x and ctrl+y act on it. Threads in view
//     in the grid count as read.
//   - Pane proportions are percentages (left column of the width, todos of
//     the body), bounded so that every pane keeps a usable size; a broken
//     tui.json is reported in the status line and the default layout used.
//   - Fork lists the thread's completed runs, newest first (the only stable
//     points); the new thread is selected when its events arrive. Switch
//     provider lists the profiles with the current one marked; the kernel
//     refuses it during a run and the status line says why.
//   - Rollback lists the runs whose checkpoint is ready, newest first
//     (rolled-back runs have stale ones), then "before run 1" when the
//     baseline is ready and a run is left to undo; with none the status
//     line says so and no dialog opens. Under the list, the run under
//     the cursor's preview, derived from the Files of the later runs'
//     checkpoints alone (no I/O): the runs it marks rolled back (queued
//     ones are cancelled), then each path once, in path order: a path
//     whose first later change is an add is removed, any other restored,
//     one added and deleted again is left out; line counts are the later
//     runs' changes summed per path, MoreFiles becomes "and N more", and
//     a later run without a ready checkpoint is named with the reason,
//     since its changes can't be listed or undone exactly. Enter asks
//     again ("Roll back T to run N now? This rewrites files in W"); enter
//     or y submits rollback.to_run, esc or n goes back, and moving to
//     another run drops the question. The dialog is rebuilt when the
//     journal moves, keeping the cursor's run. It opens while a run is
//     active and says the host will refuse; the kernel decides, and its
//     refusal shows in the status line. When the operation ends (its
//     events arrive: completed, partial or refused) the status line says
//     so with its detail, an error unless completed, and the transcript
//     shows each rollback under the run it went back to (in the thread's
//     header for "before run 1"), running ones with their step.
//   - A run's rule counts the files its checkpoint changed ("2 files +12
//     -3"; no line counts when the checkpoint did not list every file,
//     "checkpoint error" when the capture failed). The run lists them
//     (status letter A/M/D/T in the diff styles, path, +added -deleted,
//     "binary") after its steps and reply, since they are what the run
//     left behind: maxRunFiles (6) until the person opens the run, where
//     enter first shows all of them, as with cut tool output. A
//     rolled-back run says "↶ rolled back" in its rule, draws its files
//     muted and says its changes were undone.
//   - The diff view (ctrl+d) shows what `nexus diff T --run N` prints,
//     through Options.Diff, which main computes in the UI's process (a
//     client's too) from a fresh copy of the state: git plumbing that only
//     reads. The run is the one at the transcript cursor (its rule or one
//     of its steps) while the transcript has the focus, else the thread's
//     latest run with a ready checkpoint; a run without one opens nothing
//     and the status line says why ("run 2 has no ready checkpoint
//     (stale)", "run 3 has no checkpoint yet (running)"). The fetch is a
//     tea.Cmd whose context ends when the view closes; until it reports,
//     the view says "loading diff of run N…", and a failure is one line.
//     A late answer for a view closed or reopened since is dropped. It
//     covers every pane, the grid too, but the banner and the status line
//     (full width: diffs are wide), while the layout under it is kept, so
//     a terminal pane's PTY is not resized. Lines wrap (hard, keeping
//     indentation) rather than being cut; each part keeps its line's
//     style: added in DiffAdd, removed in DiffRemove, hunk headers in
//     DiffMeta, file headers (diff --git, index, ---, +++, modes) and the
//     total muted, the file list like the transcript's. Hunk headers' line
//     counts say which lines belong to a hunk, so a removed "-- x" line
//     is not taken for a "--- " header. Only the lines on screen are
//     styled. Keys other than scrolling, esc, ctrl+d, ctrl+c, f1 and
//     ctrl+o (a request dialog opens over the view) do nothing there;
//     pastes and clicks are dropped.
//   - Terminal panes: a thread whose provider has a PTY shows its terminal
//     in the main area while its session is live (core.State.Sessions:
//     not STOPPED or FAILED) and it is attached; ctrl+s switches that
//     thread to its transcript and back. Otherwise the transcript shows,
//     headed by one line that says why there is no terminal and what to
//     do ("no terminal: send a message to start shell", the process
//     exited, the connection carries no terminals). The composer still
//     sends messages to the thread (the shell provider types them).
//   - A thread without a PTY of its own (Caps.PTY false) may still have a
//     terminal: an ACP agent runs its commands in PTYs, and the host
//     offers the thread's most recent one, live or exited, until the
//     session ends (providers/acp). Such a thread shows its transcript by
//     default, with no notice, and attaches nothing; ctrl+s switches it to
//     its terminal (terms.shown) and back. Whether a terminal exists is
//     learnt by attaching when the person asks, the decision: no polling,
//     and nothing to track (a tool node names its terminalId, but the
//     host offers the newest terminal whatever its id, and a node's
//     terminal may be gone). A failed attach switches back to the
//     transcript and says why in the status line ("no terminal yet: gemini
//     has run no command in a terminal"), with no retry; so does the end
//     of the feed ("terminal closed: the gemini session ended"), and a
//     session that stops clears the switch. While shown, the pane follows
//     the agent from command to command (the host's feed switches with a
//     Reset) and stays on an exited command's last screen; it zooms,
//     takes keys and sizes its PTY like a shell's, and a grid cell of the
//     thread shows it too.
//   - A pane is attached only while shown: the selected thread's, and in
//     the grid the shell threads of the page (cells show the rows that
//     end at the cursor, at the PTY's size), at most 4. Switching thread,
//     or to the transcript, detaches. Only the selected thread's pane
//     (main area or zoom) sizes its PTY: the pane's inner size without
//     padding (the frame's borders only), or in zoom the whole screen but
//     the last line, which names the thread and the detach key. The last
//     TUI to resize wins, as core.Terminals says.
//   - A failed attach is not retried until the thread's journal moves (a
//     session event), plus three timed retries (250 ms doubling) after
//     "no terminal" while the session is live, since the PTY may still be
//     starting: no polling.
//   - The terminal's own cursor becomes the screen's (not blinking) while
//     the pane has the keys and the child shows it. The emulator keeps no
//     scrollback (the pane does not scroll; the transcript has the text);
//     with the none theme the child's colours are dropped too.
//   - Bounds: 256 keys or pastes queued per pane, 1 MiB of encoded input
//     waiting for TerminalInput (a larger paste is cut), chunks written in
//     4 KB pieces (vt scrolls by copying the screen: about 2.5 ms per
//     4 KB of scrolling output at 200x50, which is what a key waits at
//     most), a snapshot at least every 16 ms in a flood.
package tui
