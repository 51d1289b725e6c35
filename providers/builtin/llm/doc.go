// Package llm is the model layer of the built-in agent: a Client
// interface, the deterministic offline Sim model, and clients for
// OpenAI-compatible chat completions and the Anthropic messages API.
//
// Responses are journaled by the agent before it acts on them (Encode /
// DecodeResponse), so a resumed turn never asks the model again for a
// response it already has. Keys are read from the environment by the
// clients and never appear in requests the agent journals, in errors or in
// logs. An error's text, and the start of a response body it quotes (512
// bytes), can come from the server or a proxy that echoes the request's
// credentials: before an error leaves a client, every occurrence of the
// Authorization, X-Api-Key and Api-Key header values (and of the key
// after "Bearer ") is replaced with "[API key redacted]" (redact.go), and
// the body is never cut inside one.
package llm
