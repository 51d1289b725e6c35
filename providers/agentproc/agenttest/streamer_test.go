package agenttest

import (
	"reflect"
	"testing"
)

func TestParseStamps(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []Stamp
	}{
		{"", nil},
		{"0:1796013108766257704;", []Stamp{{0, 1796013108766257704}}},
		// Deltas joined by the runner or an adapter each count.
		{"7:100;8:200;9:300;", []Stamp{{7, 100}, {8, 200}, {9, 300}}},
		// A malformed stamp ends the scan; what came before counts.
		{"1:10;x:20;3:30;", []Stamp{{1, 10}}},
		{"1:10", nil},
	} {
		var got []Stamp
		n := ParseStamps(tc.text, func(s Stamp) { got = append(got, s) })
		if !reflect.DeepEqual(got, tc.want) || n != len(tc.want) {
			t.Errorf("ParseStamps(%q) = %v (%d), want %v", tc.text, got, n, tc.want)
		}
	}
}
