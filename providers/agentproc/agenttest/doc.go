// Package agenttest helps the adapters' tests: it builds the scripted
// fake agent (testdata/agents/scripted), starts an adapter on it (Start,
// Stop), plays the broken agents every adapter must fail clearly with
// (FailClearly), and records what an adapter reports. Only tests import
// it.
package agenttest
