package tui
import ("testing";"time";"fmt")
func TestPeekTiming(t *testing.T) {
	st := benchState(t, 50, 100_000)
	hs := newHarness(t, st, 120, 40)
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		hs.m.Update(keyMsg("x"))
		t1 := time.Now()
		_ = hs.m.View()
		t2 := time.Now()
		fmt.Println("update", t1.Sub(t0), "view", t2.Sub(t1))
	}
}
