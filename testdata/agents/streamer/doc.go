// Command streamer is a fake agent for nexus's adapter benchmarks: it
// answers the handshake of one protocol, and on each turn writes
// $STREAMER_DELTAS (default 10,000) text-delta frames as fast as it can,
// then ends the turn. Each delta's text is "SEQ:NANOS;", where NANOS is
// the wall clock (Unix nanoseconds) just before the frame's write, so a
// reader can tell how long each frame took to reach it. Each frame is one
// write(2) of one line, as a real agent flushes it.
//
// The protocol is the first argument: claude (stream-json: stream_event
// content_block_delta text_delta), codex (app-server:
// item/agentMessage/delta) or acp (session/update agent_message_chunk).
// Other arguments (the adapters add their own flags) are ignored.
//
// A turn starts on a claude user line, a codex turn/start or an ACP
// session/prompt; nothing else is checked, so a benchmark can also skip
// the handshake and send only that line. $STREAMER_INTERVAL (a Go
// duration, default 0) paces the deltas instead of flooding: frame i is
// due at start + i*interval, and the writer sleeps until then (after an
// oversleep it writes the frames that are due back to back, so the mean
// rate holds). The process exits at the end of stdin.
package main
