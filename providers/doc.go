// Package providers runs the effects the kernel addresses to agent
// providers and turns what the agents do into core.Observations.
//
// A Profile names a provider configuration (kind, capabilities, a
// constructor). The Registry holds the profiles and the live providers:
// Exec routes an effect to its provider, starting it on first use; an
// effect for a profile this host does not know ends the turn with a clear
// error rather than hanging it. Providers report through a Sink (the core
// Runner). Each adapter lives in its own sub-package: builtin is the
// built-in agent.
//
// A provider whose threads run in PTYs (shell), or whose agents run
// commands in PTYs nexus owns (acp: terminal/create), also implements
// Terminals (the PTY helpers are in providers/ptyterm);
// Registry.Terminal finds a thread's live PTY among the providers started
// so far (a provider is started by its first effect, so one not started
// has no terminal: core.ErrNoTerminal). The host serves it as
// core.Terminals.
//
// The instructions of the agent identity a thread was started as
// (core.Turn.Agent, Instructions) reach every turn: the built-in agent
// has them in its system prompt; Codex, Claude Code and ACP agents get
// them first in each turn's prompt (agentproc.Prompt), since their
// conversations are their own; a shell thread (a program in a PTY) gets
// no prompt from nexus and so no instructions.
//
// Providers may import core (and later workers); never store or the TUI.
// Handle must not block: turns run on the provider's own goroutines, each
// with a context cancelled by Close.
package providers
