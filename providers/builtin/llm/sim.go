package llm

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nexus-tui/nexus/core"
)

// Sim is the deterministic offline model. It understands plain requests
// (see Capabilities) joined by "and" or "then", plans them as one tool call
// per step, and answers from the tool results. Same messages in, same
// response out: it never looks at the clock or the network.
type Sim struct{}

// Name implements Client.
func (Sim) Name() string { return "sim" }

// Capabilities is what the sim model says it can do when it cannot do
// what it was asked.
const Capabilities = `With the offline sim model I can: read FILE (and summarize it); write TEXT to FILE; write a summary to FILE (after reading one); replace OLD with NEW in FILE; list the files [in DIR]; search for PATTERN [in DIR]; run ` + "`COMMAND`" + `. Join requests with "and" or "then". Set OPENAI_API_KEY or ANTHROPIC_API_KEY (and --provider builtin:openai or builtin:anthropic) for a real model.`

// step is one planned action and how to fill in its arguments.
type step struct {
	call  ToolCall
	label string
	// fill computes arguments that depend on earlier results.
	fill func(results []string) map[string]string
}

// clause patterns, tried in order on each clause of the request.
var (
	reRead      = regexp.MustCompile(`(?i)^(?:please\s+)?(?:read|open|show|cat)\s+(?:the\s+file\s+)?(\S+?)(?:\s+and\s+summari[sz]e\s+it)?\.?$`)
	reSummarize = regexp.MustCompile(`(?i)^summari[sz]e(?:\s+it)?\.?$`)
	reSummaryTo = regexp.MustCompile(`(?i)^(?:write|save|put)\s+(?:a\s+|the\s+)?summary(?:\s+of\s+it)?\s+(?:to|in|into)\s+(\S+?)\.?$`)
	reWrite     = regexp.MustCompile(`(?is)^(?:write|save|put)\s+(.+?)\s+(?:to|in|into)\s+(\S+?)\.?$`)
	reReplace   = regexp.MustCompile(`(?is)^replace\s+(.+?)\s+with\s+(.+?)\s+in\s+(\S+?)\.?$`)
	reList      = regexp.MustCompile(`(?i)^(?:list|ls)(?:\s+(?:the|all))?(?:\s+files)?(?:\s+in\s+(\S+?))?\.?$`)
	reSearch    = regexp.MustCompile(`(?is)^(?:search|grep|find)\s+(?:for\s+)?(.+?)(?:\s+in\s+(\S+?))?\.?$`)
	reRun       = regexp.MustCompile("(?is)^(?:run|execute)\\s+(?:`([^`]+)`|(.+?))\\.?$")
)

// plan turns a request into steps. Unknown clauses are returned apart.
func plan(instr string) (steps []step, summarize bool, unknown []string) {
	lastRead := ""
	for _, c := range splitClauses(instr) {
		switch {
		case reSummarize.MatchString(c):
			summarize = true
		case reSummaryTo.MatchString(c):
			m := reSummaryTo.FindStringSubmatch(c)
			target, src := unquote(m[1]), lastRead
			idx := len(steps) - 1
			for i := len(steps) - 1; i >= 0; i-- {
				if steps[i].call.Name == "read_file" {
					idx = i
					break
				}
			}
			steps = append(steps, step{call: ToolCall{Name: "write_file", Args: map[string]string{"path": target}},
				label: "write_file(" + target + ")",
				fill: func(results []string) map[string]string {
					content := "nothing was read to summarize\n"
					if idx >= 0 && idx < len(results) {
						content = summaryOf(src, results[idx])
					}
					return map[string]string{"path": target, "content": content}
				}})
		case reRead.MatchString(c):
			m := reRead.FindStringSubmatch(c)
			p := unquote(m[1])
			lastRead = p
			if strings.Contains(strings.ToLower(c), "summar") {
				summarize = true
			}
			steps = append(steps, step{call: ToolCall{Name: "read_file", Args: map[string]string{"path": p}}, label: "read_file(" + p + ")"})
		case reReplace.MatchString(c):
			m := reReplace.FindStringSubmatch(c)
			p := unquote(m[3])
			steps = append(steps, step{call: ToolCall{Name: "edit_file", Args: map[string]string{"path": p, "old": unquote(m[1]), "new": unquote(m[2])}}, label: "edit_file(" + p + ")"})
		case reWrite.MatchString(c):
			m := reWrite.FindStringSubmatch(c)
			p := unquote(m[2])
			steps = append(steps, step{call: ToolCall{Name: "write_file", Args: map[string]string{"path": p, "content": unquote(m[1]) + "\n"}}, label: "write_file(" + p + ")"})
		case reList.MatchString(c):
			m := reList.FindStringSubmatch(c)
			p := "."
			if m[1] != "" {
				p = unquote(m[1])
			}
			steps = append(steps, step{call: ToolCall{Name: "list_dir", Args: map[string]string{"path": p}}, label: "list_dir(" + p + ")"})
		case reRun.MatchString(c):
			m := reRun.FindStringSubmatch(c)
			cmd := m[1]
			if cmd == "" {
				cmd = unquote(m[2])
			}
			steps = append(steps, step{call: ToolCall{Name: "run_command", Args: map[string]string{"command": cmd}}, label: "run_command(" + cmd + ")"})
		case reSearch.MatchString(c):
			m := reSearch.FindStringSubmatch(c)
			args := map[string]string{"pattern": regexp.QuoteMeta(unquote(m[1]))}
			if m[2] != "" {
				args["path"] = unquote(m[2])
			}
			steps = append(steps, step{call: ToolCall{Name: "search", Args: args}, label: "search(" + unquote(m[1]) + ")"})
		default:
			unknown = append(unknown, c)
		}
	}
	return steps, summarize, unknown
}

// splitClauses splits on " and ", " then ", ", then" and ";", but never
// inside quotes or backticks.
func splitClauses(s string) []string {
	var out []string
	var cur strings.Builder
	quote := rune(0)
	flush := func() {
		if c := strings.TrimSpace(cur.String()); c != "" {
			out = append(out, strings.TrimSuffix(c, ","))
		}
		cur.Reset()
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if quote != 0 {
			cur.WriteRune(r)
			if r == quote {
				quote = 0
			}
			continue
		}
		switch r {
		case '"', '`', '\'':
			if r != '\'' || i == 0 || rs[i-1] == ' ' {
				quote = r
			}
			cur.WriteRune(r)
			continue
		case ';':
			flush()
			continue
		}
		// Only the next few runes can start a separator: looking at the
		// whole rest would make splitting quadratic in the message size.
		rest := strings.ToLower(string(rs[i:min(i+len(" and then "), len(rs))]))
		if r == ' ' {
			if w, ok := leadingWord(rest, " and then ", " and ", " then "); ok {
				flush()
				i += len([]rune(w)) - 1
				continue
			}
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

func leadingWord(s string, words ...string) (string, bool) {
	for _, w := range words {
		if strings.HasPrefix(s, w) {
			return w, true
		}
	}
	return "", false
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 {
		f, l := s[0], s[len(s)-1]
		if (f == '"' && l == '"') || (f == '\'' && l == '\'') || (f == '`' && l == '`') {
			return s[1 : len(s)-1]
		}
	}
	return s
}

// summaryOf derives a summary of a file from its content: its title (first
// non-empty line), its size and its first lines.
func summaryOf(path, content string) string {
	if strings.HasPrefix(content, "error: ") {
		return fmt.Sprintf("# Summary of %s\n\nThe file could not be read: %s\n", path, strings.TrimPrefix(content, "error: "))
	}
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	title := ""
	for _, l := range lines {
		if t := strings.TrimSpace(strings.TrimLeft(l, "#")); t != "" {
			title = t
			break
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Summary of %s\n\nTitle: %s\nSize: %d bytes, %d lines\n", path, title, len(content), len(lines))
	var heads []string
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			heads = append(heads, strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")))
		}
	}
	if len(heads) > 1 {
		fmt.Fprintf(&b, "Sections: %s\n", strings.Join(heads[1:], "; "))
	}
	return b.String()
}

// Complete implements Client: the next tool call not yet answered, or the
// final answer once every step has a result.
func (s Sim) Complete(ctx context.Context, req Request, onDelta func(string)) (Response, error) {
	start := time.Now()
	instr, results := lastTurn(req.Messages)
	resp := Response{Model: "sim"}
	if goal, ok := missionGoal(instr); ok {
		resp.Text = planTasks(goal)
		if onDelta != nil {
			onDelta(resp.Text)
		}
		resp.Usage = estimate(req, resp)
		return resp, ctx.Err()
	}
	if verdict, ok := reviewVerdict(instr); ok {
		resp.Text = verdict
		if onDelta != nil {
			onDelta(resp.Text)
		}
		resp.Usage = estimate(req, resp)
		return resp, ctx.Err()
	}
	instr = TaskOf(instr)
	steps, summarize, unknown := plan(instr)
	for _, st := range steps {
		resp.Plan = append(resp.Plan, st.label)
	}
	if len(results) < len(steps) {
		st := steps[len(results)]
		call := ToolCall{ID: fmt.Sprintf("call_%d", len(results)+1), Name: st.call.Name, Args: st.call.Args}
		if st.fill != nil {
			call.Args = st.fill(results)
		}
		resp.ToolCalls = []ToolCall{call}
	} else {
		resp.Text = finalText(instr, steps, results, summarize, unknown) + agentNote(req.System)
		if onDelta != nil {
			onDelta(resp.Text)
		}
	}
	resp.Usage = estimate(req, resp)
	_ = start
	return resp, ctx.Err()
}

// lastTurn returns the latest user instruction and the tool results that
// follow it, in order.
func lastTurn(msgs []Message) (string, []string) {
	instr := ""
	var results []string
	for _, m := range msgs {
		switch m.Role {
		case "user":
			instr, results = m.Text, nil
		case "tool":
			results = append(results, m.Text)
		}
	}
	return instr, results
}

func finalText(instr string, steps []step, results []string, summarize bool, unknown []string) string {
	var b strings.Builder
	if len(steps) == 0 {
		fmt.Fprintf(&b, "I did not act on %q: I do not understand it. %s\n", instr, Capabilities)
		return b.String()
	}
	for i, st := range steps {
		res := results[i]
		if strings.HasPrefix(res, "refused: ") || strings.HasPrefix(res, "error: ") || strings.HasPrefix(res, "denied ") {
			fmt.Fprintf(&b, "%s was not done: %s\n", st.label, firstLine(res))
			continue
		}
		switch st.call.Name {
		case "read_file":
			if summarize {
				b.WriteString(summaryOf(st.call.Args["path"], res))
			} else {
				fmt.Fprintf(&b, "Read %s (%d bytes).\n", st.call.Args["path"], len(res))
			}
		case "run_command":
			code, out, _ := strings.Cut(res, "\n")
			if strings.HasPrefix(code, "exit code ") {
				fmt.Fprintf(&b, "Ran `%s`: %s; output: %s\n", st.call.Args["command"], code, strings.TrimSpace(out))
			} else {
				fmt.Fprintf(&b, "Ran `%s`: %s\n", st.call.Args["command"], firstLine(res))
			}
		default:
			fmt.Fprintf(&b, "%s: %s\n", st.label, firstLine(res))
		}
	}
	if len(unknown) > 0 {
		fmt.Fprintf(&b, "I did not understand %q, so I skipped it. %s\n", strings.Join(unknown, `", "`), Capabilities)
	}
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// estimate counts tokens the way a reader would expect: about four bytes a
// token. The sim model costs nothing.
func estimate(req Request, resp Response) Usage {
	in := len(req.System)
	for _, m := range req.Messages {
		in += len(m.Text) + 8
		for _, c := range m.ToolCalls {
			in += len(c.Name)
			for k, v := range c.Args {
				in += len(k) + len(v)
			}
		}
	}
	out := len(resp.Text)
	for _, c := range resp.ToolCalls {
		out += len(c.Name) + 8
		for k, v := range c.Args {
			out += len(k) + len(v)
		}
	}
	return Usage{InputTokens: in/4 + 1, OutputTokens: out/4 + 1}
}

// AgentSection starts the part of a system prompt that carries the
// instructions of the agent identity a thread was started as: the alias
// follows it, then a colon, a newline and the instructions.
const AgentSection = "You act as the nexus agent "

// agentNote is the sim model's account of the agent instructions it was
// given (none: ""): the alias and the first line of the instructions,
// bounded, so a person (and a test) can see that they reached the turn.
func agentNote(system string) string {
	_, rest, ok := strings.Cut(system, AgentSection)
	if !ok {
		return ""
	}
	alias, instr, _ := strings.Cut(rest, ":\n")
	first, _, _ := strings.Cut(strings.TrimSpace(instr), "\n")
	if r := []rune(first); len(r) > 120 {
		first = string(r[:120]) + "…"
	}
	return fmt.Sprintf("As agent %s I follow my instructions: %s\n", alias, first)
}

// missionGoal recognises a mission planner's message (core.PlanPrompt)
// and returns its goal.
func missionGoal(instr string) (string, bool) {
	if !strings.HasPrefix(instr, core.PlanPrompt) {
		return "", false
	}
	i := strings.LastIndex(instr, "Goal: ")
	if i < 0 {
		return "", false
	}
	return strings.TrimSpace(instr[i+len("Goal: "):]), true
}

// planTasks is the sim model's plan: one task per clause of the goal;
// the clauses after a "then" depend on the ones before it.
func planTasks(goal string) string {
	var b strings.Builder
	n, prev := 0, []string(nil)
	for _, group := range thenGroups(goal) {
		var ids []string
		for _, c := range splitClauses(group) {
			n++
			fmt.Fprintf(&b, "%d. %s", n, c)
			if len(prev) > 0 {
				fmt.Fprintf(&b, " (after %s)", strings.Join(prev, ", "))
			}
			b.WriteString("\n")
			ids = append(ids, strconv.Itoa(n))
		}
		if len(ids) > 0 {
			prev = ids
		}
	}
	if n == 0 {
		fmt.Fprintf(&b, "1. %s\n", goal)
	}
	return b.String()
}

// thenGroups splits a goal at each " then " (", then", " and then ").
func thenGroups(goal string) []string {
	var out []string
	low := strings.ToLower(goal)
	for {
		i := strings.Index(low, " then ")
		if i < 0 {
			return append(out, goal)
		}
		head := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(goal[:i]), ","), " and")
		out = append(out, head)
		goal, low = goal[i+len(" then "):], low[i+len(" then "):]
	}
}

// reWrong finds the word the #wrong directive writes into files.
var reWrong = regexp.MustCompile(`\bwrong\b`)

// reviewVerdict recognises a mission reviewer's message (its task starts
// with core.ReviewPrompt) and gives the sim model's verdict on the
// change it shows (its "## Change" section): PASS, unless the change
// has the word "wrong" in it.
func reviewVerdict(instr string) (string, bool) {
	if !strings.HasPrefix(TaskOf(instr), core.ReviewPrompt) {
		return "", false
	}
	change := instr
	if i := strings.Index(change, "## Change"); i >= 0 {
		change = change[i:]
	}
	if j := strings.LastIndex(change, "## Task"); j >= 0 {
		change = change[:j]
	}
	if reWrong.MatchString(change) {
		return `FAIL: the change writes "wrong" instead of what the task asks`, true
	}
	return "PASS: the change does what the task asks", true
}

// TaskOf is the instruction of a compiled turn (core.CompileText): its
// last section's "Task: " line; any other message as it is.
func TaskOf(instr string) string {
	if i := strings.LastIndex(instr, "## Task"); i >= 0 {
		if j := strings.Index(instr[i:], "Task: "); j >= 0 {
			return strings.TrimSpace(instr[i+j+len("Task: "):])
		}
	}
	return instr
}
