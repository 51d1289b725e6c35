// Package llm is the model layer of the built-in agent: a Client
// interface, the deterministic offline Sim model, and clients for
// OpenAI-compatible chat completions and the Anthropic messages API.
//
// Responses are journaled by the agent before it acts on them (Encode /
// DecodeResponse), so a resumed turn never asks the model again for a
// response it already has. Keys are read from the environment by the
// clients and never appear in requests the agent journals, in errors or in
// logs.
package llm
