package builtin

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Directives are test controls written in a message (testdata/scenarios/
// README.md documents them). They are removed from the text the agent
// talks about.
type Directives struct {
	Slow     time.Duration // stream the reply over this long
	Plan     int           // a todo list of N steps, ticked off as it streams
	Ask      string        // ask this question first
	Approve  bool          // ask for approval first
	Subagent bool          // run a subagent node
	Fail     bool          // fail the turn at the end
	Wrong    bool          // write "wrong" into every file instead of what was asked
}

var directiveRE = regexp.MustCompile(`#(slow|plan|ask|approve|subagent|fail|wrong)(=("[^"]*"|[^\s#]*(\s+[^\s#]+)*\?|[^\s#]+))?`)

// MaxSlow bounds #slow so a typo cannot park a run for hours.
const MaxSlow = 10 * time.Minute

// ParseDirectives extracts directives from a message and returns the text
// without them. A directive is a word of its own, after the message's
// whitespace is normalised: "#approved" or "#a#asksk" hold none, so
// removing one never joins its neighbours into a new one.
func ParseDirectives(text string) (Directives, string, error) {
	var d Directives
	var errs []string
	text = strings.Join(strings.Fields(text), " ")
	var kept strings.Builder
	last := 0
	for _, m := range directiveRE.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 && text[m[0]-1] != ' ' || m[1] < len(text) && text[m[1]] != ' ' {
			continue
		}
		kept.WriteString(text[last:m[0]])
		last = m[1]
		name, val := text[m[2]:m[3]], ""
		if m[6] >= 0 {
			val = strings.Trim(text[m[6]:m[7]], `"`)
		}
		if msg := d.set(name, val); msg != "" {
			errs = append(errs, msg)
		}
	}
	kept.WriteString(text[last:])
	clean := strings.Join(strings.Fields(kept.String()), " ")
	if len(errs) > 0 {
		return d, clean, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return d, clean, nil
}

// fromInstructions adds the directives of an agent identity's
// instructions that make sense for every turn of it (#fail, #wrong,
// #slow): a test makes one agent of several misbehave.
func (d *Directives) fromInstructions(instructions string) {
	if !strings.Contains(instructions, "#") {
		return
	}
	di, _, _ := ParseDirectives(instructions)
	d.Fail = d.Fail || di.Fail
	d.Wrong = d.Wrong || di.Wrong
	d.Slow = max(d.Slow, di.Slow)
}

// set applies one directive; it returns what is wrong with its value.
func (d *Directives) set(name, val string) string {
	switch name {
	case "slow":
		dur, err := time.ParseDuration(val)
		if err != nil || dur < 0 || dur > MaxSlow {
			return fmt.Sprintf("#slow=%s is not a duration up to %s (e.g. #slow=4s)", val, MaxSlow)
		}
		d.Slow = dur
	case "plan":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > 50 {
			return fmt.Sprintf("#plan=%s is not a step count from 1 to 50", val)
		}
		d.Plan = n
	case "ask":
		if strings.TrimSpace(val) == "" {
			return "#ask needs a question, e.g. #ask=Which colour?"
		}
		d.Ask = strings.TrimSpace(val)
	case "approve":
		d.Approve = true
	case "subagent":
		d.Subagent = true
	case "fail":
		d.Fail = true
	case "wrong":
		d.Wrong = true
	}
	return ""
}
