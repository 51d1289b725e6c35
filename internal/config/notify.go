package config

import (
	"slices"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// Notify is the [notify] table: how nexus tells a person that a thread
// waits on a request, or that a run failed or finished.
type Notify struct {
	// Bell rings the terminal bell; Desktop writes desktop notification
	// sequences (OSC 9, OSC 777, OSC 99); Title keeps the terminal title
	// saying how many requests wait. The UI does these, only for threads
	// the person is not looking at.
	Bell, Desktop, Title bool
	// Events are the notice kinds that notify (core.NoticeKinds).
	Events []string
	// Command is run by the host for each such event, with the event as
	// one JSON object on its stdin; nil: none.
	Command []string
}

// DefaultNotify is [notify] when the file says nothing: the bell, desktop
// notifications and the title on, for every kind of event, no command.
func DefaultNotify() Notify {
	return Notify{Bell: true, Desktop: true, Title: true, Events: slices.Clone(core.NoticeKinds)}
}

// NotifySettings is the file's [notify] over DefaultNotify.
func (c *Config) NotifySettings() Notify {
	if c == nil || c.Notify == nil {
		return DefaultNotify()
	}
	return *c.Notify
}

// notify checks the [notify] table: bell, desktop, title, events and
// command. Keys it does not set keep DefaultNotify's values.
func (p *parser) notify(v any, cfg *Config) error {
	at := []string{"notify"}
	tbl, ok := v.(map[string]any)
	if !ok {
		return p.errf(at, "notify is %s; write it as a table: [notify]", typeName(v))
	}
	n := DefaultNotify()
	for _, k := range p.keys(tbl, at) {
		key := []string{"notify", k}
		var err error
		switch k {
		case "bell", "desktop", "title":
			b, ok := tbl[k].(bool)
			if !ok {
				return p.errf(key, "%s is %s; write true or false", keyString(key), typeName(tbl[k]))
			}
			switch k {
			case "bell":
				n.Bell = b
			case "desktop":
				n.Desktop = b
			default:
				n.Title = b
			}
		case "events":
			n.Events, err = p.events(tbl[k], key)
		case "command":
			n.Command, err = p.command(tbl[k], key)
		default:
			err = p.errf(key, "unknown key %s; [notify] has bell, desktop, title, events and command", keyString(key))
		}
		if err != nil {
			return err
		}
	}
	cfg.Notify = &n
	return nil
}

// events checks [notify] events: a list of notice kinds, each once.
func (p *parser) events(v any, key []string) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, p.errf(key, "%s is %s; write a list of %s, such as [\"waiting\", \"failed\"] ([] for none)",
			keyString(key), typeName(v), strings.Join(core.NoticeKinds, ", "))
	}
	out := []string{}
	for i, e := range arr {
		s, ok := e.(string)
		switch {
		case !ok:
			return nil, p.errf(key, "%s entry %d is %s; every entry must be a string", keyString(key), i+1, typeName(e))
		case !slices.Contains(core.NoticeKinds, s):
			return nil, p.errf(key, "%s entry %q is not one of %s", keyString(key), s, strings.Join(core.NoticeKinds, ", "))
		case slices.Contains(out, s):
			return nil, p.errf(key, "%s lists %q twice", keyString(key), s)
		}
		out = append(out, s)
	}
	return out, nil
}
