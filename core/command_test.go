package core

import (
	"math"
	"strings"
	"testing"
)

func TestValidateRefusesBadFields(t *testing.T) {
	base := Command{ID: "c1", Kind: CmdMessageSend, Thread: "t1", Text: "hi"}
	cases := map[string]func(c *Command){
		"nan budget": func(c *Command) {
			c.Kind, c.NewThread, c.Provider, c.BudgetUSD = CmdThreadCreate, "t2", "p", math.NaN()
		},
		"inf budget": func(c *Command) {
			c.Kind, c.NewThread, c.Provider, c.BudgetUSD = CmdThreadCreate, "t2", "p", math.Inf(1)
		},
		"huge answer":       func(c *Command) { c.Answer = strings.Repeat("a", MaxTextBytes+1) },
		"huge workspace":    func(c *Command) { c.Workspace = strings.Repeat("w", MaxTextBytes+1) },
		"bad utf8 answer":   func(c *Command) { c.Answer = "\xff" },
		"no id":             func(c *Command) { c.ID = "" },
		"long title":        func(c *Command) { c.Title = strings.Repeat("t", MaxTitleBytes+1) },
		"no thread":         func(c *Command) { c.Thread = "" },
		"bad utf8 worktree": func(c *Command) { c.Worktree = "/x/\xff" },
		"huge repo":         func(c *Command) { c.Repo = strings.Repeat("r", MaxTextBytes+1) },
	}
	for name, mut := range cases {
		c := base
		mut(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := base.Validate(); err != nil {
		t.Fatalf("a valid command was refused: %v", err)
	}
}
