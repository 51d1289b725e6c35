package builtin

import (
	"testing"
	"time"
)

func TestParseDirectives(t *testing.T) {
	cases := []struct {
		in    string
		want  Directives
		clean string
		bad   bool
	}{
		{in: "hello", clean: "hello"},
		{in: "#slow=4s count to ten", want: Directives{Slow: 4 * time.Second}, clean: "count to ten"},
		{in: "do it #plan=3 #approve", want: Directives{Plan: 3, Approve: true}, clean: "do it"},
		{in: "#ask=Which colour? paint", want: Directives{Ask: "Which colour?"}, clean: "paint"},
		{in: `#ask="Which colour" paint`, want: Directives{Ask: "Which colour"}, clean: "paint"},
		{in: "#subagent #fail x", want: Directives{Subagent: true, Fail: true}, clean: "x"},
		{in: "#slow=forever x", bad: true, clean: "x"},
		{in: "#plan=0 x", bad: true, clean: "x"},
		{in: "#slow=11m x", bad: true, clean: "x"},
	}
	for _, c := range cases {
		d, clean, err := ParseDirectives(c.in)
		if (err != nil) != c.bad {
			t.Errorf("%q: err = %v, want bad=%v", c.in, err, c.bad)
		}
		if !c.bad && d != c.want {
			t.Errorf("%q: directives = %+v, want %+v", c.in, d, c.want)
		}
		if clean != c.clean {
			t.Errorf("%q: clean = %q, want %q", c.in, clean, c.clean)
		}
	}
}
