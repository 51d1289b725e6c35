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
}

var directiveRE = regexp.MustCompile(`#(slow|plan|ask|approve|subagent|fail)(=("[^"]*"|[^\s#]*(\s+[^\s#]+)*\?|[^\s#]+))?`)

// MaxSlow bounds #slow so a typo cannot park a run for hours.
const MaxSlow = 10 * time.Minute

// ParseDirectives extracts directives from a message and returns the text
// without them.
func ParseDirectives(text string) (Directives, string, error) {
	var d Directives
	var errs []string
	clean := directiveRE.ReplaceAllStringFunc(text, func(m string) string {
		sub := directiveRE.FindStringSubmatch(m)
		name, val := sub[1], strings.Trim(sub[3], `"`)
		switch name {
		case "slow":
			dur, err := time.ParseDuration(val)
			if err != nil || dur < 0 || dur > MaxSlow {
				errs = append(errs, fmt.Sprintf("#slow=%s is not a duration up to %s (e.g. #slow=4s)", val, MaxSlow))
				return ""
			}
			d.Slow = dur
		case "plan":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > 50 {
				errs = append(errs, fmt.Sprintf("#plan=%s is not a step count from 1 to 50", val))
				return ""
			}
			d.Plan = n
		case "ask":
			if strings.TrimSpace(val) == "" {
				errs = append(errs, "#ask needs a question, e.g. #ask=Which colour?")
				return ""
			}
			d.Ask = strings.TrimSpace(val)
		case "approve":
			d.Approve = true
		case "subagent":
			d.Subagent = true
		case "fail":
			d.Fail = true
		}
		return ""
	})
	clean = strings.Join(strings.Fields(clean), " ")
	if len(errs) > 0 {
		return d, clean, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return d, clean, nil
}
