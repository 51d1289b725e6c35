package llm

import (
	"context"
	"strings"
	"testing"
)

// TestSimReportsAgentInstructions: a turn whose system prompt carries an
// agent's instructions gets a reply that says which agent it acted as and
// the instructions' first line; without them the reply says nothing of it.
func TestSimReportsAgentInstructions(t *testing.T) {
	req := Request{System: "base\n\n" + AgentSection + "@reviewer:\nAlways answer pass or fail.\nSecond line.",
		Messages: []Message{{Role: "user", Text: "hello there"}}}
	resp, err := Sim{}.Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "As agent @reviewer I follow my instructions: Always answer pass or fail.\n"; !strings.HasSuffix(resp.Text, want) {
		t.Fatalf("reply %q does not end with %q", resp.Text, want)
	}
	req.System = "base"
	resp, _ = Sim{}.Complete(context.Background(), req, nil)
	if strings.Contains(resp.Text, "As agent") {
		t.Fatalf("a turn without an agent got %q", resp.Text)
	}
}
