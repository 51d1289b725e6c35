package tui

import (
	"context"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/nexus-tui/nexus/core"
	"github.com/nexus-tui/nexus/themes"
)

// focus is the pane that receives keys when no dialog is open.
type focus int

const (
	focusThreads focus = iota
	focusMain
	focusComposer
	focusCount
)

// Model is the root Bubble Tea model. It owns focus, the layout, the
// dialog stack and the projection; panes are plain structs it renders.
//
// Invariant: Update and View never block and never do I/O. Submits run
// in tea.Cmds that capture the backend and the command by value.
type Model struct {
	ctx     context.Context
	backend Backend
	now     func() time.Time // the clock for ages; fixed in tests
	// timer replaces tea.Tick in tests (nil: tea.Tick).
	timer  func(d time.Duration, msg tea.Msg) tea.Cmd
	opts   Options
	st     themes.Styles
	keys   KeyMap
	resync func() // asks the bridge for a fresh snapshot; never blocks
	// switchTo is the project the person opened in the team dialog; Run
	// returns it.
	switchTo *SwitchProject

	width, height int
	lay           layout

	focus   focus
	dialogs []dialog

	state    *core.State          // nil until the first snapshot
	live     map[string]string    // node id -> streamed text the journal lacks
	folds    map[string]foldState // run ("run:" + id) or node id -> open/closed
	cmdOut   map[string]cmdLayout // run_command node id -> its output laid out (cmd_output.go)
	wraps    wrapCache            // node id -> its text wrapped (wrap_cache.go)
	watch    watching             // the shown threads the bridge was told (watch.go)
	rows     []threadRow          // non-archived threads, by creation
	pending  []*core.Request      // pending requests of all threads, oldest first
	active   int                  // runs running or waiting, over all threads
	activity map[string]uint64    // thread -> seq of its last journaled event
	seen     map[string]uint64    // thread -> activity seq when last shown

	selected string // selected thread id
	// pendingSelect is a thread just created whose events have not
	// arrived yet; it is selected when they do.
	pendingSelect string
	threads       threadsPane
	threadsGen    int          // see threadsKey
	boxes         boxMemo      // see boxParts
	edge          composerEdge // see composerEdge
	threadsCache  struct {
		key   threadsKey
		lines []string
	}
	conv     conversation
	composer composer
	grid     gridState

	// prefs is the layout the person chose; prefsOut saves it (nil in
	// tests that do not set a state dir).
	prefs    prefs
	prefsOut *prefsWriter
	// startNote is shown in the status line at start (a broken layout
	// file, say).
	startNote string

	flash   flash
	conn    error // why the subscription is down; nil when connected
	flashID int

	spinning  bool // a spinner tick is pending
	spinFrame int

	// terms are the terminal panes of threads with a PTY (term.go).
	terms terms

	// diff is the diff view of a run (diff_view.go), over the panes.
	diff diffView

	// reqBox is the selected thread's waiting request, shown in the
	// composer area (request_box.go).
	reqBox requestBox

	// notify is what notifications need (notify.go).
	notify notifyState
	// search is the transcript's search box and its current match
	// (search.go).
	search searchBox
	// composerView is the empty composer's drawing (composer_view.go).
	composerView composerView
	// frames draws the screen when Run runs the program (frames.go);
	// nil in tests that drive Update and View.
	frames *frames
}

// threadRow is the derived view of one thread for the list.
type threadRow struct {
	th        *core.Thread
	queued    int
	approvals int // pending approvals
	questions int // pending questions
	// recoverable: a run a host restart interrupted waits for resume.
	recoverable bool
	// shared: another live thread works in the same directory, or in
	// one inside or around it (sharedDirs).
	shared bool
	// activity is what its active run does, in a few words; started is
	// when that run started (0: none active). thread_activity.go.
	activity string
	started  int64
}

// flash is a transient message in the status line.
type flash struct {
	text  string
	isErr bool
	id    int
}

// newModel builds the root model. Run wires it to a program; tests drive
// its Update directly.
func newModel(ctx context.Context, b Backend, opts Options, st themes.Styles) *Model {
	if len(opts.Profiles) == 0 {
		opts.Profiles = []Profile{{Name: "builtin", Description: "built-in agent"}}
	}
	m := &Model{
		ctx: ctx, backend: b, opts: opts, st: st, keys: DefaultKeyMap(), resync: func() {}, now: time.Now,
		live: map[string]string{}, folds: map[string]foldState{}, cmdOut: map[string]cmdLayout{}, activity: map[string]uint64{}, seen: map[string]uint64{},
		focus: focusComposer, terms: newTerms(b, opts.Scrollback),
	}
	m.threads = newThreadsPane(st)
	m.conv = newConversation()
	m.composer = newComposer(st, m.keys)
	m.composer.focus()
	m.reqBox.input = newInput(st, "your answer")
	m.selected = opts.Thread
	m.resize(80, 24)
	return m
}

// ageTick redraws the thread ages. The renderer writes only the cells
// that changed, so an idle screen costs a few bytes a minute.
const ageTick = time.Minute

// ageTickMsg re-arms the age tick.
type ageTickMsg struct{}

func (m *Model) tickAges() tea.Cmd { return m.after(ageTick, ageTickMsg{}) }

// after delivers msg after d. Every timer of the model goes through it,
// so tests can see them and need not wait.
func (m *Model) after(d time.Duration, msg tea.Msg) tea.Cmd {
	if m.timer != nil {
		return m.timer(d, msg)
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	if m.startNote != "" {
		return tea.Batch(m.tickAges(), m.setFlash(m.startNote, true))
	}
	return m.tickAges()
}

// Update implements tea.Model. After every message the terminal panes
// and the request box follow what the screen shows (syncTerms,
// syncRequestBox), and what moves on screen ticks if it came into view
// (startSpinner).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.syncTerms()
	if c := m.syncRequestBox(); c != nil {
		cmd = tea.Batch(cmd, c)
	}
	m.syncWatch()
	if spin := m.startSpinner(); spin != nil {
		cmd = tea.Batch(cmd, spin)
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case snapshotMsg:
		m.watch.tell = msg.watch
		m.loadSnapshot(msg.state, msg.rewatch)
		if msg.damaged != nil {
			return tea.Batch(m.startSpinner(), m.setFlash(msg.damaged.Error(), true))
		}
		return m.startSpinner()
	case spinMsg:
		return m.spin()
	case frameMsg:
		notify := m.notifyFrame(msg) // before the frame moves the seq
		return tea.Batch(m.applyFrame(msg), notify)
	case tea.FocusMsg, tea.BlurMsg:
		m.focusChanged(msg)
	case connMsg:
		m.conn = msg.err
		m.relayout()
	case submitResultMsg:
		return m.submitted(msg)
	case createdAndSentMsg:
		cmd := m.submitted(msg.create)
		if msg.send.cmd.Kind == "" {
			return cmd
		}
		return tea.Batch(cmd, m.submitted(msg.send))
	case ageTickMsg:
		return m.tickAges()
	case prefsSavedMsg:
		return m.setFlash(msg.err.Error(), true)
	case clearFlashMsg:
		if msg.id == m.flash.id {
			m.flash = flash{}
		}
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.PasteMsg:
		return m.handlePaste(msg)
	case tea.MouseWheelMsg:
		m.handleWheel(msg)
	case tea.MouseClickMsg:
		m.handleClick(msg)
	case termDirtyMsg, termEndedMsg, termRetryMsg:
		return m.termMsg(msg)
	case diffMsg:
		return m.diffLoaded(msg)
	case requestArmMsg, requestAnsweredMsg:
		return m.requestBoxMsg(msg)
	case repoCheckedMsg:
		m.repoChecked(msg)
	case worktreeDoneMsg:
		return m.worktreeDone(msg)
	case editorMsg:
		return m.editorDone(msg)
	case teamMsg:
		return m.teamLoaded(msg)
	}
	return nil
}

// loadSnapshot replaces the projection.
// keep (a new set of shown threads) keeps what it tracks per thread.
func (m *Model) loadSnapshot(st *core.State, keep bool) {
	if st == nil {
		st = core.NewState()
	}
	st.Reindex()
	m.state = st
	m.live = map[string]string{}
	if !keep {
		m.activity = map[string]uint64{}
		m.seen = map[string]uint64{}
	}
	m.invalidateAll()
	m.derive()
	if m.selected == "" || m.state.Threads[m.selected] == nil {
		m.selectThread(m.mostRecentThread())
	}
	if len(m.rows) == 0 {
		m.setFocus(focusThreads)
	}
	m.relayout()
}

// applyFrame folds a bridge frame into the projection: journaled events
// first, then the live text.
func (m *Model) applyFrame(f frameMsg) tea.Cmd {
	if m.state == nil {
		return nil // a frame before the snapshot belongs to no projection
	}
	if f.resetLive {
		for id := range m.live {
			m.invalidateNode(id)
		}
		m.live = map[string]string{}
	}
	var settled *core.Operation
	for i := range f.journal {
		ev := &f.journal[i]
		if ev.Seq <= m.state.Seq {
			continue // seen before a resubscribe
		}
		if op := settledOp(m.state, ev); op != nil {
			settled = op
		}
		if err := m.state.Apply(ev); err != nil {
			m.conn = err
			m.resync()
			return nil
		}
		if ev.Thread != "" {
			m.activity[ev.Thread] = ev.Seq
		}
		m.invalidateEvent(ev)
	}
	for id, text := range f.live {
		if text == "" {
			delete(m.live, id)
		} else {
			m.live[id] = text
		}
		m.invalidateNode(id)
	}
	if len(f.journal) > 0 {
		m.derive()
		m.closeSettledDialogs()
		if m.pendingSelect != "" && m.state.Threads[m.pendingSelect] != nil {
			m.selectThread(m.pendingSelect)
			m.pendingSelect = ""
		}
		if m.state.Threads[m.selected] == nil || m.state.Threads[m.selected].Archived {
			m.selectThread(m.mostRecentThread())
		}
		if i := indexOf(m.visibleRows(), m.selected); m.grid.on && i >= 0 {
			m.grid.cursor = i
		}
		if m.gridShown() {
			m.markGridSeen()
		}
		m.seen[m.selected] = m.activity[m.selected]
		m.relayout()
		if settled != nil {
			return tea.Batch(m.opOutcome(settled), m.startSpinner())
		}
		return m.startSpinner()
	}
	return nil
}

// derive recomputes the thread rows and the pending requests after the
// journal moved. It is linear in the entities of the projection.
func (m *Model) derive() {
	rows := make([]threadRow, 0, len(m.state.Threads))
	byThread := map[string]int{}
	for _, th := range m.state.Threads {
		if th.Archived || th.Status == core.ThreadArchived {
			continue
		}
		rows = append(rows, threadRow{th: th})
	}
	active := 0
	shared := sharedDirs(rows)
	for i, r := range rows {
		byThread[r.th.ID] = i
		rows[i].shared = shared[r.th.ID]
		for _, run := range m.state.RunsOf(r.th.ID) {
			switch run.Status {
			case core.RunQueued:
				rows[i].queued++
			case core.RunRunning, core.RunWaiting:
				active++
			case core.RunInterrupted:
				rows[i].recoverable = rows[i].recoverable || run.Recoverable
			}
		}
	}
	var pending []*core.Request
	for _, q := range m.state.Requests {
		if q.Status != core.RequestPending {
			continue
		}
		if i, ok := byThread[q.Thread]; ok {
			if q.Kind == core.RequestUserInput {
				rows[i].questions++
			} else {
				rows[i].approvals++
			}
			pending = append(pending, q)
		}
	}
	sort.Slice(pending, func(i, j int) bool {
		if pending[i].CreatedAt != pending[j].CreatedAt {
			return pending[i].CreatedAt < pending[j].CreatedAt
		}
		return pending[i].ID < pending[j].ID
	})
	for i := range rows {
		rows[i].activity, rows[i].started = threadActivity(m.state, rows[i].th, pending)
	}
	m.sortRows(rows)
	m.rows, m.pending, m.active = rows, pending, active
	m.threadsGen++
}

// mostRecentThread is the thread last updated, or "".
func (m *Model) mostRecentThread() string {
	best := ""
	var at int64
	for _, r := range m.rows {
		if best == "" || r.th.UpdatedAt > at {
			best, at = r.th.ID, r.th.UpdatedAt
		}
	}
	return best
}

// selectThread makes id the selected thread and marks it read.
func (m *Model) selectThread(id string) {
	if id != m.selected {
		m.conv.reset()
		// Each thread keeps its own draft: what was typed stays with the
		// thread it was typed for.
		// Text typed while no thread was shown (before the first state
		// arrived, or with none) goes to the first thread that has no
		// draft of its own.
		if m.selected != "" || m.prefs.Drafts[id] != "" {
			m.keepDraft()
			m.composer.setDraft(m.prefs.draft(id))
		}
	}
	m.selected = id
	if id != "" {
		m.seen[id] = m.activity[id]
	}
	m.threadsGen++
	m.relayout()
}

// keepDraft stores the composer's draft as the selected thread's.
func (m *Model) keepDraft() {
	if m.prefs.keepDraft(m.selected, m.composer.draft()) {
		m.prefsChanged()
	}
}

// selectedThread returns the selected thread, or nil.
func (m *Model) selectedThread() *core.Thread {
	if m.state == nil {
		return nil
	}
	return m.state.Threads[m.selected]
}

// unread reports whether a thread has events the user has not seen.
func (m *Model) unread(id string) bool {
	return id != m.selected && m.activity[id] > m.seen[id]
}

// activeRuns counts runs that are running or waiting, over all threads.
func (m *Model) activeRuns() int { return m.active }

// setFocus moves keyboard focus to a pane.
func (m *Model) setFocus(f focus) {
	m.focus = f
	if f == focusComposer {
		m.composer.focus()
	} else {
		m.composer.blur()
	}
}
