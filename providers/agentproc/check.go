package agentproc

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// Version runs `command --version` (bounded by timeout) and returns its
// first line, or "" when it says nothing useful.
func Version(command string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, command, "--version")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}
