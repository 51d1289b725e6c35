package tui

import (
	"strings"
	"testing"

	"github.com/nexus-tui/nexus/core"
)

// The new-thread dialog lists the agents of the state after the
// profiles; choosing one starts the thread as it, on its profile. An
// agent on a profile the UI does not know, or a removed one, is not
// offered; instructions are shown sanitised, on one line.
func TestNewThreadDialogStartsAThreadAsAnAgent(t *testing.T) {
	st := core.NewState()
	st.Agents["g1"] = &core.Agent{ID: "g1", Alias: "reviewer", Profile: "builtin:nosteer", Instructions: "Say pass\x1b[31m or fail.\nMore."}
	st.Agents["g2"] = &core.Agent{ID: "g2", Alias: "ghost", Profile: "nope"}
	st.Agents["g3"] = &core.Agent{ID: "g3", Alias: "gone", Profile: "builtin", Removed: true}
	hs := newHarness(t, st, 120, 40)
	hs.press("ctrl+n")
	screen := hs.screen()
	if !strings.Contains(screen, "@reviewer · agent on builtin:nosteer · Say pass or fail. More.") {
		t.Fatalf("the dialog does not list the agent with its profile and instructions:\n%s", screen)
	}
	if strings.Contains(screen, "@ghost") || strings.Contains(screen, "@gone") || strings.Contains(screen, "\x1b[31m") {
		t.Fatalf("the dialog lists an agent it cannot start, or raw escapes:\n%s", screen)
	}
	hs.press("shift+tab", "down", "down", "enter") // provider field, the third choice: the agent
	c := hs.lastCmd()
	if c.Kind != core.CmdThreadCreate || c.Agent != "reviewer" || c.Provider != "builtin:nosteer" {
		t.Fatalf("thread.create = %+v; want agent reviewer on builtin:nosteer", c)
	}
}
