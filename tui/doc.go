// Package tui is the full-screen terminal UI of nexus: a Bubble Tea v2
// program over a Backend (the in-process core.Runner of a host, or an
// api.Client of a host that runs elsewhere; both satisfy core.Backend).
//
// # Who may import what
//
// tui imports core (domain types, commands, State.Apply) and themes, and
// the Charm stack. It never imports store, providers or workers
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
//     conversation.go and run_view.go (the transcript), todos.go,
//     composer.go, status.go (banner and status line).
//   - submit.go turns intents into tea.Cmds that capture the backend and the
//     command by value. Update and View never block and never do I/O; even
//     the new thread's workspace is checked inside the Cmd.
//
// Goroutines: the Bubble Tea event loop owns the Model; the bridge owns the
// subscription and talks to the loop only through program.Send; submit
// Cmds run on Bubble Tea's command goroutines and report back as messages.
// Run cancels and waits for the bridge before it returns.
//
// # Keys
//
// One KeyMap (keys.go) is the source of every key and of the help dialog
// (f1 everywhere, ? when not typing):
//
//	ctrl+c        quit (asks first while runs are active)
//	ctrl+n        new thread dialog (provider profile, title, workspace)
//	ctrl+o        open the oldest approval or question waiting for you
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
//	esc           leave the composer; close a dialog
//	j/k, g/G, /, q, ?   lists and transcript when not typing
//	y / a / n     allow once / allow always / deny in an approval dialog
//
// ctrl+q and ctrl+r were picked because a raw-mode tty delivers them (flow
// control is off) and tmux passes them; alt+q and alt+r are there for
// terminals that still grab ctrl+q. ctrl+j is the one newline key every
// terminal sends distinctly from enter; alt+enter works in most.
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
//   - The cursor does not blink, and there is no spinner: an idle screen
//     writes nothing to the terminal.
//   - The mouse is captured (cell motion) so the wheel scrolls the pane
//     under it and a click focuses a pane or selects a thread; most
//     terminals still select text with shift held.
//   - The todos pane shows the active run's list, else the latest run's
//     that has one; its title names the run.
//   - Resume of crash-interrupted runs is not bound to a key yet: the
//     transcript says `nexus resume` continues them.
package tui
