// Package agenttest helps the adapters' tests: it builds the scripted
// fake agent (testdata/agents/scripted) and records what an adapter
// reports. Only tests import it.
package agenttest
