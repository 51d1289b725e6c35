package claude

import (
	"regexp"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// plans is a turn's todo lists: the main agent's, and one per subagent
// (a Task or Agent tool call), whose TodoWrite and Task* calls carry the
// subagent's tool_use id as their parent. A subagent's list never
// replaces its parent's: items nests it under a line for the subagent,
// one level deeper.
type plans struct {
	main     plan
	children map[string]*plan // by the subagent's tool_use id
	order    []string         // subagents in the order they were started
	titles   map[string]string
	parents  map[string]string // subagent id -> the subagent it runs under ("" for the main agent)
}

// subagent records a Task or Agent call so its own list can be nested.
func (p *plans) subagent(id, parent, title string) {
	if p.titles == nil {
		p.titles, p.parents, p.children = map[string]string{}, map[string]string{}, map[string]*plan{}
	}
	if _, ok := p.titles[id]; !ok {
		p.order = append(p.order, id)
	}
	p.titles[id], p.parents[id] = title, parent
}

// of is the list a call made under parent changes. A parent never seen
// starting (a frame out of order) is taken for a subagent of the main
// agent.
func (p *plans) of(parent string) *plan {
	if parent == "" {
		return &p.main
	}
	if _, known := p.titles[parent]; !known {
		p.subagent(parent, "", "subagent")
	}
	c := p.children[parent]
	if c == nil {
		c = &plan{}
		p.children[parent] = c
	}
	return c
}

// toolUse reports whether a call changed a list.
func (p *plans) toolUse(parent, id, name string, in map[string]any) bool {
	return p.of(parent).toolUse(id, name, in)
}

// toolResult reports whether a result changed a list (a created task
// learning its id).
func (p *plans) toolResult(id, text string, isError bool) bool {
	if p.main.toolResult(id, text, isError) {
		return true
	}
	for _, c := range p.children {
		if c.toolResult(id, text, isError) {
			return true
		}
	}
	return false
}

// depth is how many subagents deep a subagent runs (1 for one the main
// agent started), bounded against a cycle in bad input.
func (p *plans) depth(id string) int {
	d := 1
	for cur := p.parents[id]; cur != "" && d < 8; cur = p.parents[cur] {
		d++
	}
	return d
}

// items flattens the lists: the main list, then each subagent that has a
// list, as a line naming it (done when its list is) followed by its items
// one level deeper.
func (p *plans) items() []core.PlanItem {
	out := p.main.items()
	for _, id := range p.order {
		c := p.children[id]
		if c == nil || len(c.list) == 0 {
			continue
		}
		d := p.depth(id)
		out = append(out, core.PlanItem{Text: "subagent: " + p.titles[id], Status: overall(c.list), Depth: d - 1})
		for _, it := range c.list {
			it.Depth = d
			out = append(out, it)
		}
	}
	return out
}

// overall is a list's status as one item: completed when every item is,
// in progress when any item has started, else pending.
func overall(list []core.PlanItem) core.PlanItemStatus {
	done := 0
	for _, it := range list {
		switch it.Status {
		case core.ItemCompleted:
			done++
		case core.ItemInProgress:
			return core.ItemInProgress
		}
	}
	if done == len(list) {
		return core.ItemCompleted
	}
	if done > 0 {
		return core.ItemInProgress
	}
	return core.ItemPending
}

// listItem matches a markdown list line: "- x", "* x", "+ x", "1. x", "2) x".
var listItem = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.+)$`)

// maxProposed bounds the steps taken from a proposed plan.
const maxProposed = 50

// proposedItems are the steps of a plan Claude Code proposes with
// ExitPlanMode (markdown): its list items, or, when it has none, its
// non-empty lines; all pending.
func proposedItems(md string) []core.PlanItem {
	var list, lines []core.PlanItem
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(strings.TrimRight(l, "\r"))
		if m := listItem.FindStringSubmatch(l); m != nil && len(list) < maxProposed {
			list = append(list, core.PlanItem{Text: m[1], Status: "pending"})
		} else if l != "" && len(lines) < maxProposed {
			lines = append(lines, core.PlanItem{Text: strings.TrimLeft(l, "# "), Status: "pending"})
		}
	}
	if len(list) > 0 {
		return list
	}
	return lines
}
