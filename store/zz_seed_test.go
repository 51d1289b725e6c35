package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

func TestWriteSeeds(t *testing.T) {
	dir := "testdata/fuzz/FuzzDecodeEvent"
	os.MkdirAll(dir, 0o755)
	write := func(name string, b []byte) {
		os.WriteFile(filepath.Join(dir, name), []byte("go test fuzz v1\n[]byte("+strconv.Quote(string(b))+")\n"), 0o644)
	}
	seen := map[string]bool{}
	for _, ev := range flatten(newGen(5).commits(200)) {
		if !seen[ev.Type] {
			seen[ev.Type] = true
			write("event-"+ev.Type, appendEvent(nil, &ev))
		}
	}
	rnd := rand.New(rand.NewPCG(8, 9))
	var ev core.Event
	fill(reflect.ValueOf(&ev).Elem(), rnd, 1)
	ev.Payload.Thread.Title = "long title"
	for i := range 3 { _ = i }
	b := appendEvent(nil, &ev)
	if len(b) < 20000 {
		write("all-fields", b)
	}
	fmt.Println(len(b))
	one := flatten(newGen(6).commits(1))[0]
	good := appendEvent(nil, &one)
	write("truncated", good[:len(good)/2])
	write("empty", nil)
	write("nil", []byte{0xc0})
	write("unknown-keys", append([]byte{0x82, 0xa1, 'q', 0x01, 0xa2, 'z', 'z', 0x92, 0xd6, 0x01, 1, 2, 3, 4, 0xcb}, make([]byte, 8)...))
}
