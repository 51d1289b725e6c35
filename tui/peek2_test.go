package tui
import ("testing";"time";"fmt";"context";"os";"strings";"github.com/nexus-tui/nexus/core"
	tea "charm.land/bubbletea/v2"
	"github.com/creack/pty")
type tiny struct{ s string }
func (t *tiny) Init() tea.Cmd { return nil }
func (t *tiny) Update(msg tea.Msg) (tea.Model, tea.Cmd) { if k, ok := msg.(tea.KeyPressMsg); ok { t.s += k.String() }; return t, nil }
func (t *tiny) View() tea.View { v := tea.NewView(strings.Repeat("line\n", 10) + t.s); v.AltScreen = true; return v }
func TestPeekTiny(t *testing.T) {
	for _, fps := range []int{60, 120} {
	ptm, pts, _ := pty.Open()
	pty.Setsize(ptm, &pty.Winsize{Rows: 40, Cols: 120})
	ch := make(chan time.Time, 1000)
	go func() { buf := make([]byte, 65536); for { n, err := ptm.Read(buf); if n > 0 { ch <- time.Now() }; if err != nil { return } } }()
	ctx, cancel := context.WithCancel(context.Background())
	p := tea.NewProgram(&tiny{}, tea.WithContext(ctx), tea.WithInput(pts), tea.WithOutput(pts), tea.WithEnvironment([]string{"TERM=xterm-256color"}), tea.WithFPS(fps))
	go p.Run()
	quiet := func() { for { select { case <-ch: case <-time.After(100*time.Millisecond): return } } }
	quiet()
	var lat []time.Duration
	for i := 0; i < 100; i++ {
		t0 := time.Now(); ptm.Write([]byte("x")); at := <-ch; lat = append(lat, at.Sub(t0)); quiet2 := func(){ for { select { case <-ch: case <-time.After(30*time.Millisecond): return } } }; quiet2()
	}
	fmt.Println(fps, "p50", percentile(lat, .5), "p99", percentile(lat, .99))
	cancel(); _ = os.Stdout
	}
}
func TestPeekSmall(t *testing.T) {
	for _, sz := range [][2]int{{1, 10}, {50, 100000}} {
	st := benchState(t, sz[0], sz[1])
	r := startOnPTY(t, &benchBackend{st: st, feed: make(chan core.Event)})
	r.quiet(t, 500*time.Millisecond)
	var lat []time.Duration
	for j := range 100 {
		key := []byte("x")
		if j%2 == 1 { key = []byte{0x7f} }
		lat = append(lat, r.keyToFrame(t, key))
		r.quiet(t, 30*time.Millisecond)
	}
	fmt.Println(sz, "p50", percentile(lat, .5), "p99", percentile(lat, .99))
	r.cancel()
	}
}
