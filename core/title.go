package core

import (
	"strings"
	"unicode"
)

// A thread made without a title ("thread 3", TitleAuto) takes one from
// its first message: the message's first line, its whitespace collapsed,
// cut at a word to at most MaxAutoTitle characters ("…" marks a cut). A
// title given, or set since with thread.rename, is never replaced.
const MaxAutoTitle = 48

// titleFromMessage titles an untitled thread after the message it was
// just sent.
func (t *tx) titleFromMessage(c *Command) {
	th := t.st.Threads[c.Thread]
	if th == nil || !th.TitleAuto {
		return
	}
	title := autoTitle(c.Text)
	if title == "" {
		return
	}
	u := *th
	u.Title, u.TitleAuto = title, false
	t.putThread(u)
}

// autoTitle is the title a message gives a thread.
func autoTitle(text string) string {
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if l = strings.Join(strings.FieldsFunc(l, unicode.IsSpace), " "); l != "" {
			line = l
			break
		}
	}
	line = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, line)
	runes := []rune(line)
	if len(runes) <= MaxAutoTitle {
		return line
	}
	cut := string(runes[:MaxAutoTitle-1])
	if i := strings.LastIndexByte(cut, ' '); i > MaxAutoTitle/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
