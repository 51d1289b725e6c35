package tui

import "strings"

// The sequences a notification writes to the outer terminal, beyond the
// frames (tea.Raw). They carry agent text, so every piece is one line
// with no control character (sanitised) and bounded.

// maxNotifyBytes bounds a desktop notification's title and body each.
const maxNotifyBytes = 200

// notifyTerm is what the outer terminal takes.
type notifyTerm struct {
	tmux  bool // inside tmux: wrap OSCs for passthrough
	kitty bool // the terminal advertises OSC 99 (kitty)
}

// detectNotifyTerm reads the terminal from the environment: $TMUX for
// tmux, and kitty's own variables ($KITTY_WINDOW_ID, TERM=xterm-kitty),
// which kitty sets and tmux passes on, for OSC 99.
func detectNotifyTerm(getenv func(string) string) notifyTerm {
	return notifyTerm{
		tmux:  getenv("TMUX") != "",
		kitty: getenv("KITTY_WINDOW_ID") != "" || getenv("TERM") == "xterm-kitty",
	}
}

// notifyText is s safe inside an OSC: one line of printable text, at
// most maxNotifyBytes, cut at a character.
func notifyText(s string) string {
	s = oneLine(s)
	if len(s) <= maxNotifyBytes {
		return s
	}
	n := maxNotifyBytes - len("…")
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// bellSeq rings the terminal bell; tmux handles it itself (it sets the
// window's bell flag and passes it on), so it is never wrapped.
const bellSeq = "\a"

// desktopSeq is a desktop notification in every form the terminal may
// take: OSC 9 (iTerm2, WezTerm, Windows Terminal, foot, ghostty), OSC
// 777 notify (urxvt, foot, ghostty, VTE) and, where advertised, OSC 99
// (kitty), each wrapped for tmux passthrough inside tmux. A terminal
// ignores the OSCs it does not know.
func desktopSeq(title, body string, t notifyTerm) string {
	title, body = notifyText(title), notifyText(body)
	// OSC 777 separates its fields with ';'.
	t777 := strings.ReplaceAll(title, ";", ",")
	seqs := []string{
		"\x1b]9;" + title + ": " + body + "\a",
		"\x1b]777;notify;" + t777 + ";" + body + "\a",
	}
	if t.kitty {
		seqs = append(seqs,
			"\x1b]99;i=nexus:d=0;"+title+"\x1b\\",
			"\x1b]99;i=nexus:d=1:p=body;"+body+"\x1b\\")
	}
	var b strings.Builder
	for _, s := range seqs {
		b.WriteString(passthrough(s, t.tmux))
	}
	return b.String()
}

// windowTitle is the terminal title: "nexus", or how many requests wait
// ("nexus · 2 waiting").
func windowTitle(waiting int) string {
	if waiting <= 0 {
		return "nexus"
	}
	return "nexus · " + itoa(waiting) + " waiting"
}

// NotifyTest is what `nexus notify test` writes to the terminal so a
// person can check their setup: the bell, a desktop notification and the
// title "nexus · notify test", each only where opts turns it on, in the
// forms the UI would use in this environment (getenv: os.Getenv). It also
// says in words what it sent, one line each.
func NotifyTest(opts NotifyOptions, getenv func(string) string) (seq string, said []string) {
	t := detectNotifyTerm(getenv)
	var b strings.Builder
	if opts.Bell {
		b.WriteString(bellSeq)
		said = append(said, "bell: rung (BEL)")
	}
	if opts.Desktop {
		b.WriteString(desktopSeq("nexus · notify test", "a desktop notification from nexus notify test", t))
		forms := "OSC 9 and OSC 777"
		if t.kitty {
			forms += " and OSC 99"
		}
		if t.tmux {
			forms += ", wrapped for tmux (it forwards them with set -g allow-passthrough on)"
		}
		said = append(said, "desktop: sent as "+forms)
	}
	if opts.Title {
		b.WriteString("\x1b]2;nexus · notify test\a")
		said = append(said, `title: set to "nexus · notify test" (the UI sets "nexus · 2 waiting" while requests wait)`)
	}
	return b.String(), said
}
