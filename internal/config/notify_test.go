package config

import (
	"slices"
	"testing"
)

func TestNotify(t *testing.T) {
	cfg, err := Parse("/c.toml", []byte("theme = \"dark\"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := cfg.NotifySettings(); !n.Bell || !n.Desktop || !n.Title || !slices.Equal(n.Events, []string{"waiting", "failed", "finished"}) || n.Command != nil {
		t.Errorf("no [notify]: %+v, want the bell, desktop and title on for every event, no command", n)
	}
	if n := (*Config)(nil).NotifySettings(); !n.Bell {
		t.Errorf("no config: %+v, want the defaults", n)
	}
	cfg, err = Parse("/c.toml", []byte("[notify]\nbell = false\nevents = [\"waiting\"]\ncommand = [\"ntfy\", \"publish\", \"nexus\"]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := cfg.NotifySettings()
	if n.Bell || !n.Desktop || !n.Title || !slices.Equal(n.Events, []string{"waiting"}) || !slices.Equal(n.Command, []string{"ntfy", "publish", "nexus"}) {
		t.Errorf("[notify] read as %+v", n)
	}
	cfg, err = Parse("/c.toml", []byte("[notify]\nevents = []\n"), nil)
	if err != nil || len(cfg.NotifySettings().Events) != 0 || cfg.NotifySettings().Events == nil {
		t.Errorf("events = []: %+v %v, want no event to notify", cfg, err)
	}
	for _, tc := range []struct{ file, want string }{
		{"[notify]\nbell = \"yes\"\n", `config /c.toml:2: notify.bell is a string; write true or false`},
		{"[notify]\nevents = [\"done\"]\n", `config /c.toml:2: notify.events entry "done" is not one of waiting, failed, finished`},
		{"[notify]\nevents = [\"failed\", \"failed\"]\n", `config /c.toml:2: notify.events lists "failed" twice`},
		{"[notify]\nevents = \"failed\"\n", `config /c.toml:2: notify.events is a string; write a list of waiting, failed, finished, such as ["waiting", "failed"] ([] for none)`},
		{"[notify]\ncommand = []\n", `config /c.toml:2: notify.command is empty; its first word is the program to run`},
		{"[notify]\nsound = true\n", `config /c.toml:2: unknown key notify.sound; [notify] has bell, desktop, title, events and command`},
		{"notify = true\n", `config /c.toml:1: notify is a boolean; write it as a table: [notify]`},
	} {
		_, err := Parse("/c.toml", []byte(tc.file), nil)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v\nwant %s", tc.file, err, tc.want)
		}
	}
}
