// Command scripted is a fake agent for nexus's adapter tests: it plays a
// scripted transcript over stdin/stdout, one JSON frame per line, and
// checks every frame nexus sends against it. It speaks whatever protocol
// the script is written in (Claude Code stream-json, Codex app-server,
// ACP), since each of them is newline-delimited JSON.
//
// The script is the file named by $SCRIPTED_FILE (or the first argument
// that is not a flag). One step per line:
//
//	expect JSON     read the next frame; it must contain JSON (objects
//	                match as subsets, other values exactly)
//	send JSON       write a frame; $name is replaced by a value captured
//	                from an expected frame (see capture); $cwd is the
//	                working directory
//	capture NAME PATH   remember a field of the last expected frame
//	                (PATH like request_id or params.threadId)
//	sleep DURATION  wait
//	raw TEXT        write TEXT as a line, as it is (garbage)
//	stderr TEXT     write TEXT to stderr
//	exit CODE       exit at once
//	hang            stop answering (reads and drops stdin until EOF)
//	eof             wait for stdin to close, then exit 0
//	ignore-term     ignore SIGTERM from now on (to test kill escalation)
//
// Lines starting with # and blank lines are ignored. Every frame read and
// the outcome are appended to $SCRIPTED_LOG: "recv <frame>", then "ok" at
// the end of the script or "FAIL <why>"; a mismatch exits 2.
package main
