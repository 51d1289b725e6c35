// Package builtin is the built-in agent on the deterministic offline
// `sim` model. In this version it is the conversation agent: it streams a
// reply, keeps a todo list, asks for approval and asks questions, runs a
// subagent node, takes steering in place between chunks, stops on
// interrupt, and resumes after a restart from what the journal says (the
// start_turn effect carries the context and the run's settled requests, so
// a recovery attempt never asks twice).
//
// The agent is stateless between turns: everything comes in the effect.
// Two profiles: builtin (every capability) and builtin:nosteer (the same
// agent declaring no steering, so the kernel restarts the turn instead).
//
// With #subagent the planning loop runs as a subagent node: its model
// calls and worker steps nest under it, it ends with its own answer, and
// the turn's reply reports it; the kernel checkpoints the node's scope
// when a step under it could change files.
//
// Messages may carry directives for tests and demos (#slow, #plan, #ask,
// #approve, #subagent, #fail), documented in testdata/scenarios/README.md.
// Every reply ends with a line naming the latest instruction it acted on
// and the number of user messages in its context.
//
// A thread started as an agent identity (nexus agent add) has the agent's
// alias and instructions after the built-in agent's system prompt on
// every model call (llm.AgentSection); the sim model's reply then says
// which agent it acted as and quotes the instructions' first line.
package builtin
