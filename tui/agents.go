package tui

import "github.com/nexus-tui/nexus/core"

// withAgents is the new-thread dialog's list of choices: the provider
// profiles the host serves (Options.Profiles), then one entry per agent
// identity in the state (nexus agent add), on the profile it runs on. An
// agent whose profile this UI was not given is left out: a thread could
// not be started on it. Choosing an agent starts the thread as it
// (thread.create with Agent), with its profile's policy and budget.
func withAgents(profiles []Profile, st *core.State) []Profile {
	if st == nil {
		return profiles
	}
	out := append([]Profile(nil), profiles...)
	for _, a := range st.AgentList() {
		for _, p := range profiles {
			if p.Name != a.Profile {
				continue
			}
			p.Agent = a.Alias
			p.Description = "agent on " + p.Name
			if a.Instructions != "" {
				p.Description += " · " + a.Instructions
			}
			out = append(out, p)
			break
		}
	}
	return out
}

// choiceLabel is how the dialog names a choice: a profile by its name, an
// agent by its alias.
func choiceLabel(p Profile) string {
	if p.Agent != "" {
		return "@" + p.Agent
	}
	return p.Name
}
