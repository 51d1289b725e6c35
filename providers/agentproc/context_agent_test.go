package agentproc

import (
	"strings"
	"testing"
)

// A thread started as an agent gets the agent's instructions first in
// every prompt, fresh session or resumed; other threads get none.
func TestPromptCarriesAgentInstructions(t *testing.T) {
	for _, history := range []bool{false, true} {
		tu := bridgeTurn()
		tu.Agent, tu.Instructions = "reviewer", "Answer pass or fail."
		got := Prompt(tu, history)
		want := "Instructions for you as agent @reviewer (from nexus; they hold for every turn):\nAnswer pass or fail.\n\n"
		if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "three") {
			t.Fatalf("history=%v: prompt =\n%q\nwant it to start with\n%q", history, got, want)
		}
		if plain := Prompt(bridgeTurn(), history); strings.Contains(plain, "Instructions for you") {
			t.Fatalf("a thread without an agent got instructions:\n%s", plain)
		}
	}
}
