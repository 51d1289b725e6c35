package claude

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/nexus-tui/nexus/core"
)

// plan is the turn's todo list as Claude Code keeps it: TodoWrite replaces
// the whole list; newer versions create and update tasks one by one
// (TaskCreate, whose result names the task id, and TaskUpdate).
type plan struct {
	list    []core.PlanItem
	ids     []string          // task id of each item ("" for TodoWrite items)
	created map[string]string // TaskCreate tool_use id -> subject, until its result names the id
}

var taskIDRE = regexp.MustCompile(`#(\w+)`)

// toolUse reports whether a tool call changed the list.
func (p *plan) toolUse(id, name string, in map[string]any) bool {
	switch name {
	case "TodoWrite":
		todos, _ := in["todos"].([]any)
		p.list, p.ids = nil, nil
		for _, x := range todos {
			m, _ := x.(map[string]any)
			text, _ := m["content"].(string)
			status, _ := m["status"].(string)
			p.list = append(p.list, core.PlanItem{Text: text, Status: planStatus(status)})
			p.ids = append(p.ids, "")
		}
		return true
	case "TaskCreate":
		subject, _ := in["subject"].(string)
		if subject == "" {
			subject, _ = in["description"].(string)
		}
		if p.created == nil {
			p.created = map[string]string{}
		}
		p.created[id] = subject
		p.list = append(p.list, core.PlanItem{Text: subject, Status: "pending"})
		p.ids = append(p.ids, "pending:"+id)
		return true
	case "TaskUpdate":
		tid := fmt.Sprint(in["taskId"])
		for i, x := range p.ids {
			if x != tid {
				continue
			}
			if st, _ := in["status"].(string); st == "deleted" {
				p.list = append(p.list[:i], p.list[i+1:]...)
				p.ids = append(p.ids[:i], p.ids[i+1:]...)
				return true
			} else if st != "" {
				p.list[i].Status = planStatus(st)
			}
			if subj, _ := in["subject"].(string); subj != "" {
				p.list[i].Text = subj
			}
			return true
		}
	}
	return false
}

// toolResult learns a created task's id from its result.
func (p *plan) toolResult(id, text string, isError bool) bool {
	if _, ok := p.created[id]; !ok {
		return false
	}
	delete(p.created, id)
	for i, x := range p.ids {
		if x != "pending:"+id {
			continue
		}
		if isError {
			p.list = append(p.list[:i], p.list[i+1:]...)
			p.ids = append(p.ids[:i], p.ids[i+1:]...)
			return true
		}
		if m := taskIDRE.FindStringSubmatch(text); m != nil {
			p.ids[i] = m[1]
		}
		return false
	}
	return false
}

func (p *plan) items() []core.PlanItem { return append([]core.PlanItem(nil), p.list...) }

func planStatus(s string) core.PlanItemStatus {
	switch strings.ToLower(s) {
	case "completed", "done":
		return core.ItemCompleted
	case "in_progress", "in-progress", "active":
		return core.ItemInProgress
	}
	return core.ItemPending
}
