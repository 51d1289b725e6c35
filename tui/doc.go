// Package tui is the full-screen terminal UI of nexus: a Bubble Tea v2
// program over a Backend (the in-process core.Runner of a host, or an
// api.Client of a host that runs elsewhere; both satisfy core.Backend).
//
// # Who may import what
//
// tui imports core (domain types, commands, State.Apply) and themes, and
// the Charm stack, including github.com/charmbracelet/x/vt (the terminal
// emulator of the PTY panes) and ultraviolet (the key type vt encodes).
// It never imports store, providers, workers, internal/config or the
// host (internal/layout/deps_test.go enforces it): provider profiles for
// the new-thread dialog come in through Options.Profiles (the agent
// identities it lists after them come from the core.State the UI holds,
// on those profiles: agents.go), diffs through
// Options.Diff, git worktree operations through Options.Worktrees. Only
// internal/cli wires a backend in.
//
// # Structure
//
//   - Run (run.go) builds the Model and the program (frames_run.go),
//     starts the bridge goroutine and waits for both. Frames are drawn on
//     demand; see Frames below.
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
//     changes, in layout.go), the dialog stack (dialogs.go and the
//     dialog_*.go files; dialogs return typed actions the root carries out),
//     and a private core.State to which it applies journaled events with
//     State.Apply. A gap makes it ask the bridge for a fresh snapshot.
//   - The thread list (threads.go) has three rows per thread: title and
//     age; badge, elapsed time of the active run, queued runs and activity
//     (thread_activity.go, read off the state: the prompt of a pending
//     request, the newest running tool call made plain, "writing a
//     reply", "thinking"); place, provider, runs, tokens and cost.
//     thread_order.go orders it (alt+s: creation, needs me, repository,
//     last activity; kept in the layout file); thread_manage.go renames
//     (f2) and archives (alt+a) the selected thread. While a run is
//     active the list's cache key has the second, so elapsed times tick
//     with the spinner; an idle list redraws once a minute (ages).
//   - Panes are plain render functions over the model: threads.go,
//     conversation.go, run_view.go and node_view.go (the transcript: a
//     tree of runs and nodes with a fold cursor, cursor.go; run_files.go
//     the files each run's checkpoint changed; msg_fold.go folds a
//     message of the person's of more than 12 lines or 4 KiB to its first
//     4 rows), todos.go,
//     composer.go, status.go (banner, spinner and status line), grid.go
//     (the multi-agent grid). Every pane returns lines of exactly its
//     width, and render lays them side by side row by row.
//   - Rendering costs what changed, not the run's length: an event
//     re-renders only the runs it touched (conversation.go), and a node's
//     text is wrapped through wrap_cache.go, which keeps per node, width
//     and drawing the styled lines of its paragraphs up to the last safe
//     newline, so a delta wraps the last paragraph and what it added
//     (checked against a fresh wrap by a fuzz test).
//   - Watching (watch.go): the model tells the bridge which threads are
//     on screen (selected, or the grid's page), and the bridge drops the
//     live deltas of the others: no frame is drawn for what does not
//     show. On a remote host (a backend with SubscribeShown) it also
//     subscribes again from 0 for that set, so other threads' deltas and
//     text are never decoded here; statuses, runs and requests of every
//     thread still arrive, and the new snapshot keeps the activity and
//     seen marks. A thread just shown gets its text from the journal
//     within a flush (a second), as after any resubscribe.
//   - The composer (composer.go) is a bubbles textarea. A paste of more
//     than 10 lines or 2 KiB (foldLines, foldBytes) is kept aside as a
//     paste block and shown as one token, "[pasted 400 lines · 371 KB]"
//     (paste.go); the draft's text is the textarea's with each token
//     replaced by its paste. After every key, paste_edit.go keeps the
//     tokens whole: an edit that reaches into one removes the whole
//     paste, and the cursor steps over it. So the textarea holds only
//     what was typed, and a key costs the same with a 400 KB draft as
//     with none (BenchmarkKeyToFramePaste). The composer's top edge shows
//     a draft of more than one line's size, "400 lines · 371 KB", counted
//     without expanding it.
//   - diff_view.go is the diff view (ctrl+d): one run's unified diff
//     over the whole screen but the banner and the status line, fetched
//     through Options.Diff by a tea.Cmd.
//   - request_box.go shows the selected thread's waiting request in the
//     composer area (see "A waiting request" below); request_box_keys.go
//     takes its keys and request_box_view.go draws it. palette.go is the command palette (ctrl+k), a dialog;
//     palette_keys.go turns a KeyMap key name back into the key press.
//   - Reading and finding. copy.go puts text on the clipboard with
//     OSC 52 through tea.Raw (alt+y): the diff in the diff view; in the
//     transcript the item at the cursor (a run: its reply, as the agent
//     wrote it; a step: its output; a long message: the message); else
//     the selected thread's latest reply. The exact text goes out
//     base64-encoded, so nothing in it acts on the terminal, at most 1
//     MiB (the status line says when it was cut); inside tmux both as is
//     (set-clipboard on) and wrapped for passthrough (allow-passthrough
//     on). search.go is the transcript's search box (alt+/ or ctrl+/),
//     over the status line: it unfolds what hides the query, highlights
//     the current match, scrolls to it and puts the transcript cursor on
//     it (search_match.go finds and marks the matches). editor.go runs
//     $VISUAL, else $EDITOR, else vi, with the terminal handed over
//     (tea.ExecProcess): alt+e on the draft (through a temporary file;
//     the file's text comes back as the draft), alt+o on the diff of the
//     diff view or on the file a step at the cursor
//     wrote or read (only inside the thread's workspace).
//   - team.go is the team dialog (f4, alt+h): Options.Team lists the
//     hub's projects off the event loop; a UI shows one project (one
//     journal) at a time, so opening another project's thread ends Run
//     with a *SwitchProject that the caller turns into a new UI on it.
//     A send the backend kept for later (core.ErrQueued: the project's
//     host is down) says "queued" and gives no draft back, so it is not
//     queued twice. On a hub project (Options.Remote) the status line
//     names the host holding it, or says "no owner" while none does
//     (Options.HostLabelNow), instead of this machine's state dir; the
//     label changes without a key or an event (a lease expires), so
//     Options.HostLabelChanged wakes the UI for the frame that shows it.
//     The team dialog grows past other dialogs' width on a wide screen:
//     a host's name holds a machine, a state dir and a pid.
//   - mission_view.go is the missions view (f3, alt+i): every mission,
//     newest first, with a row per task (number and dependencies, agent,
//     status, attempt, last verification, cost, a star on a race's
//     winner) and under the mission what it waits on the person for,
//     the merged result's check, the votes and how it ended; it follows
//     the journal while open. Its keys act on the row at the cursor and
//     are the dialog's own (it has no composer): a approves a plan or
//     answers a question with one more attempt (r too), v votes in a
//     race, x stops a task's thread or the mission after asking, enter
//     opens the task's (or planner's) thread. The thread list keeps a
//     mission's threads together (thread_order.go), planner first, each
//     row naming its mission and task.
//   - usage_view.go is the cost view (alt+u): a dialog with tokens, runs
//     and cost per thread, provider and UTC day and the total, summed by
//     core.SumUsage from threads and runs only (no sealed history, so no
//     I/O in View), again whenever the model's state has moved on; and
//     the selected thread's spend and budget. "unknown" marks usage that
//     came without a price. A budget request shows in the composer area
//     like an approval: 1 runs this turn, 2 lifts the budget, 3 stops.
//   - dialog_newthread.go (new
//     thread), dialog_fork.go (fork), dialog_pick.go (switch provider),
//     dialog_worktree.go (a worktree thread's diff, commit, merge and
//     archive) and dialog_rollback.go (roll back to a run,
//     a mark or a subagent that changed files: a pick list with a preview
//     of what changes, and a second enter; m marks the workspace now; the
//     rollback's outcome in the status line and the transcript) are the
//     dialogs; dialogs.go has the stack, help and quit.
//   - worktree.go keeps threads from sharing a directory by accident.
//     A thread is live until it is archived. The new thread and fork
//     dialogs offer "own git worktree" with a branch (nexus/<title's
//     words>, a free variant when taken); it is on by default when the
//     new thread would work in a git repository where a live thread
//     works: for a new thread, a live thread's workspace lies in the
//     workspace's repository (its main checkout: a thread in a worktree
//     of its own elsewhere does not count); for a fork, always in a git
//     repository, since the fork would share the source's directory.
//     Whether the workspace is in a repository is asked in a Cmd
//     (Worktrees.Repo) when the dialog opens and when the workspace
//     field changes; the person's toggle (space) wins over that answer.
//     Creating makes the worktree (Worktrees.Add) and then submits
//     thread.create or thread.fork in it, in one Cmd. The thread list
//     shows a worktree thread's branch (⎇), and "⇄ shared dir" for a
//     thread whose workspace another live thread's equals, contains or
//     lies in (sharedDirs, after each journaled frame).
//   - prefs.go keeps the pane proportions the person chose and each
//     thread's draft in STATE_DIR/tui.json (read by Run before the
//     program starts, written by a Cmd, atomically, newest wins). A
//     draft is kept expanded, with the byte ranges that were pastes
//     (draftPastes), and folded again when it comes back.
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
//     term_view.go draws a pane, the zoom and the notices;
//     term_scroll.go keeps a pane's scrollback and scrolls it.
//
// Goroutines: the Bubble Tea event loop owns the Model; the bridge owns the
// subscription and talks to the loop only through program.Send; submit
// Cmds run on Bubble Tea's command goroutines and report back as messages.
// Each attached terminal has three goroutines, all ended by the pane's
// context (its own, under the Model's):
//
//   - the reader calls AttachTerminal, writes each chunk into the
//     emulator (a Reset first resets it, RIS, and empties the scrollback,
//     and takes the PTY's size to replay, then the pane's), moves the
//     lines each write scrolls off the screen into the pane's scrollback
//     (rendered text, at most Options.Scrollback lines, 10,000 by
//     default, in blocks it only appends to, so a published view of
//     them stays valid), and after each burst (at most a frame of
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
// # Notifications
//
// notify.go tells the person when a thread starts waiting on a request,
// fails or finishes a run (core.NoticeOf, the kinds in
// Options.Notify.Events) while they are not looking at it: another
// thread is selected, or the terminal reported it lost focus (the view
// asks for focus reports, tea.FocusMsg/tea.BlurMsg, while the bell or
// desktop notifications are on; a terminal that never reports counts as
// focused; tmux reports only with `set -g focus-events on`). Before a
// frame of journaled events is applied, notifyFrame picks out its
// notices and returns one tea.Raw with the bell (once a frame) and up to
// three desktop notifications (notify_seq.go: OSC 9 and OSC 777, OSC 99
// when kitty's variables are set; inside tmux each is wrapped for
// passthrough, which tmux forwards with `set -g allow-passthrough on`;
// the bell is not wrapped: tmux flags the window and passes it on).
// Title and body are the thread's title and the notice's text, one line
// of sanitised text of at most 200 bytes each. The terminal title is
// "nexus · 2 waiting" while requests wait and "nexus" otherwise
// (Options.Notify.Title; off: always "nexus"). A client UI of a remote
// host notifies the same way: it sees the same journal. Notices are not
// replayed: what happened before the UI opened does not ring.
//
// The thread list marks a shell thread whose provider guessed from its
// program's last line that it waits for input (a runtime warning with
// core.GuessedInputNote) "◇ needs input?", apart from the waits a
// protocol reports (◆, ✎), until its next run (notify_guess.go); the
// help dialog lists the marks.
//
// # Frames
//
// Bubble Tea's renderer is off (its 120 Hz ticker was the idle UI's whole
// cost); nexus draws its own frames, on demand. The program runs the
// frames model (frames.go) around the root Model: every message the
// Model takes marks the view dirty, and the View call that follows each
// Update hands the Model's view to the painter, a goroutine that writes
// the cell diff (screen.go: ultraviolet's TerminalRenderer, as Bubble
// Tea's renderer does, with the same terminal modes and synchronized
// output, mode 2026, where the terminal has it). The first frame after a
// quiet spell is drawn at once, so a key press is on screen without
// waiting for a frame period. Within 8 ms of a frame (frameBudget) the
// next one is held back: the painter arms a timer and sends drawMsg when
// the budget is over, and the latest view is drawn; a flooding stream
// costs at most one View and one frame per 8 ms. With nothing held back
// no timer runs; while nothing changes nothing runs at all. A frame
// redraws into the cell buffer only the lines that changed
// (drawChangedLines). What moves on screen ticks at its own rate only
// while it is visible (spin.go): the spinner 10 times a second while the
// status line shows it, the elapsed times once a second while only the
// thread list shows them.
//
// Bubble Tea does some things only with its renderer on; the program
// does them (frames_run.go, frames_tty.go): the tty's raw mode, the
// terminal's size and SIGWINCH, the mode 2026 query, handing the
// terminal to $EDITOR (Model.execProcess: tea.Exec with an ExecCommand
// that gives the screen and the tty back and takes them again) and
// before tea.Suspend. Bytes for the terminal (the bell, notifications,
// OSC 52) go through Model.raw, which queues them to the painter ahead
// of the frame of the same update; a tea.Raw from elsewhere is turned
// into rawOutMsg by the program's filter and queued the same way.
// Bubble Tea v2.1.1 still starts a ticker without its renderer;
// quietTicker (frames_ticker.go) stops it after Run and after each
// handover. docs/decisions/tui-frames-on-demand.md has the why.
//
// # Invariants
//
//   - Update and View never block and never do I/O: no channel receive,
//     file, network or kernel call. Work that waits runs in a tea.Cmd that
//     captures values, never the model.
//   - The model applies journaled events only in seq order, each once;
//     live text is only what the journal does not hold yet, so no text is
//     drawn twice.
//   - Agent and tool text is stripped of escape sequences and control
//     characters before it is drawn (sanitize, text.go).
//   - Every pane returns lines of exactly its width.
//   - An idle screen writes nothing to the terminal and wakes nothing:
//     the cursor does not blink, no ticker runs, and the spinner and the
//     elapsed times tick only while runs are active and they are on
//     screen.
//   - Quitting asks first while a run is active, and says what will
//     happen to it.
//
// # Keys
//
// One KeyMap (keys.go) is the source of every key and of the help dialog
// (f1 everywhere, ? when not typing):
//
//	ctrl+c        clear the draft; on an empty one quit (asks first while
//	              runs are active)
//	ctrl+n        new thread dialog (provider profile or agent, title,
//	              workspace, own worktree and its branch): it opens on
//	              the title; up/down pick the provider from any field,
//	              tab/shift+tab move between fields (the fork dialog's
//	              up/down pick its run the same way)
//	ctrl+o        jump to the oldest request waiting for you, across all
//	              threads: selects its thread; the request shows in the
//	              composer area, ready for a digit
//	1-9           answer the request in the composer area by its number
//	alt+m         the composer area: the waiting request or your draft
//	shift+up/down scroll a long command or diff in the request
//	ctrl+y        resume the selected thread's run a host restart interrupted
//	ctrl+t        fork the selected thread at a completed run (dialog;
//	              tab to the worktree option)
//	ctrl+l, alt+w the selected thread's worktree (dialog): d its diff
//	              against the branch it came from (the diff view), c
//	              commit its changes (the message drafted from its runs,
//	              edited first: enter commits, alt+enter/ctrl+j new line),
//	              m merge its branch (y/enter to confirm), a archive the
//	              thread and remove the worktree (asks again when it
//	              holds uncommitted work)
//	space         new thread and fork dialogs, on the Worktree field:
//	              own git worktree on/off
//	ctrl+p        switch the selected thread's provider (dialog)
//	ctrl+z        roll the selected thread's workspace back to a run, a
//	              mark (listed above the run it follows) or a subagent
//	              that changed files (below its run) (dialog: enter picks,
//	              enter or y again rolls back, esc or n goes back to the
//	              list, m marks the workspace as it is now)
//	f3, alt+i     the missions view: task graphs; a approve, r retry, v
//	              vote, x stop (asks), enter open the thread, esc close
//	f4, alt+h     the team dialog (team mode): every project on the hub
//	              under the host holding it, with its threads; enter opens
//	              one (another project ends Run with *SwitchProject, and
//	              the caller opens the UI on it); without Options.Team it
//	              says the config needs a [team] table
//	alt+u, alt+$  the cost view: tokens and cost per thread, provider and
//	              day, and the selected thread's budget; up/down (j/k)
//	              scroll it, esc, q or alt+u again closes it
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
//	ctrl+u        clear the whole draft, pastes and all (up brings it
//	              back: a cleared draft goes into the history)
//	up/down       composer history (when the input is empty)
//	esc           leave the composer; close a dialog; from a thread zoomed
//	              out of the grid, back to the grid
//	ctrl+k        the command palette: every thread and every key of the
//	              KeyMap (read from KeyMap.groups when it opens, so a key
//	              added there appears by itself), filtered as you type
//	              (every word must occur in the entry); enter selects the
//	              thread or presses the action's key; a key that types
//	              text or works only in a dialog is listed, and enter says
//	              where it works
//	alt+k         filter the thread list by name (threads or transcript
//	              focused; enter keeps the filter, esc clears it)
//	j/k, g/G, /, q, ?   lists and transcript when not typing
//	up/down, enter/space   transcript: move the cursor between runs,
//	              steps and long messages, open or close the one under
//	              it (a click opens or folds a long message); i writes
//	arrows, enter, esc     grid: move, zoom into the thread, leave
//	y / n         yes / no in the quit, merge and archive confirmations
//	alt+y         copy to the clipboard (OSC 52): the diff in the diff
//	              view; the reply, output or message at the transcript
//	              cursor; else the latest reply
//	alt+/, ctrl+/ search the transcript: the box takes the status line and
//	              every key; enter, down or ctrl+n the next match, up or
//	              ctrl+p the previous (both wrap), esc closes it
//	alt+e         write the draft in $VISUAL/$EDITOR (vi)
//	alt+o         open the diff (diff view), or the file of the step at
//	              the transcript cursor, in $VISUAL/$EDITOR
//	ctrl+f        zoom the selected thread's terminal to the whole screen
//	ctrl+s        show the thread's terminal or its transcript (a PTY
//	              thread: its program; another, such as ACP: the terminal
//	              of its agent's last command)
//	ctrl+]        leave the focused terminal pane (to the composer); zoomed:
//	              detach back to the normal view
//	shift+pgup/shift+pgdown   scroll the terminal in the main area or the
//	              zoom back/forward a page, focused or not (the wheel
//	              over it: 3 lines a notch); never sent to the program
//	shift+home/shift+end   scrolled back: the oldest line kept, the
//	              bottom; at the bottom they go to the program
//
// The issue asked for / and n/N in the transcript; here printable keys
// always type into the composer, so search opens with alt+/ (ctrl+/,
// which most terminals send as ctrl+_, too), and n/N live inside the
// search box as enter/down and up, where typing goes to the query. The
// box is modal like the thread filter: printable keys type the query
// until esc, and then go to the composer again.
//
// A focused terminal pane (tab or a click into it) and the zoom send
// every key to the child, tab, ctrl+c, f1 and esc included, except
// ctrl+], the one way out, and the scroll keys. ctrl+f and ctrl+s work
// everywhere else. Pastes go to the focused terminal, bracketed when the
// child asked for it. Keys the vt encoder does not know (cursor and
// editing keys with modifiers) are sent as xterm does (CSI 1;5D).
//
// Scrolled back, a pane shows its scrollback above its screen, hides the
// program's cursor and says how far up it is in its bottom edge (the
// zoom: in its last line). New output leaves the view on the same lines,
// as tmux's copy mode does; any key or paste sent to the program, and a
// message the composer sends to the thread, take it back to the bottom.
// A rebuilt pane (a Reset: a resize, the zoom) rebuilds the scrollback
// from the replayed output and keeps the view as far above the cursor's
// line as it was; a new attach starts at the bottom. The alternate
// screen (vim, less) has no scrollback, and a grid cell always shows the
// bottom. Rebuilding answers no terminal query: the replay goes through
// the same emulator, whose replies the drain drops.
//
// # A waiting request
//
// When the selected thread waits on a request, the composer area turns
// into it: a box above the draft with the request's id, run and thread
// in its top edge, its whole prompt (the command, the question or the
// diff, sanitised, at most 2,000 lines kept; the box takes at most half
// the rows above the composer, and shift+up/down scroll what does not
// fit, counted in its bottom edge), and its choices numbered as the
// agent offers them: 1 allow once, 2 allow always, 3 deny for an
// approval; for a question, its options (the adapters write one question
// as "Which colour? [red / blue]", up to eight) and then "type an
// answer…". A thread's oldest request shows first; the next shows when
// it is answered.
//
// Only digits answer, and only once the box is armed. A request that
// appears by itself (it arrived, or the person moved to its thread) is
// armed after requestGuard (0.7 s, a Model.after timer): until then a
// digit is taken for what it was, a key of the draft, and types into it.
// One the person asked for (ctrl+o, alt+m) is armed at once. Letters,
// and the digits of the guard, type into the draft, which stays visible
// under the box and is never changed by an answer: it is the same text
// when the request is gone. Enter does not send the draft while a box
// shows (the accident this guards against: "yes" and enter steering the
// run); alt+m sets the request aside and shows the draft alone,
// where enter sends as usual, and brings it back, armed. Pressing the
// number of "type an answer…" opens an input in the box: every key but
// the ones that work everywhere types into it, enter sends, esc goes
// back to the choices (the text stays), ctrl+c clears it and on an
// empty one goes back too, never reaching the draft. Once an answer
// is sent the box says so and takes no digit until the journal resolves
// the request; a refused answer re-enables the digits. A request answered
// elsewhere (the CLI, another UI) leaves the box with the next frame.
//
// # Decisions
//
// Why the screen and the keys are as they are (the layout, what the
// transcript shows, the dialogs, the diff view, the terminal panes, the
// frame rate, each key) is recorded in docs/decisions/, one file per
// decision (the tui-* files); docs/ARCHITECTURE.md follows a key press
// from this package to the journal and back.
package tui
