package codex

import (
	"github.com/nexus-tui/nexus/core"
)

// The thread's policy (core.Policy.Allow: the action kinds it runs
// without asking) reaches Codex as Codex's own two controls, sent with
// every thread/start, thread/resume, thread/fork and turn/start (a turn's
// overrides hold for the turns after it, and the thread's list grows
// with "allow always"):
//
//   - the sandbox: workspace-write, whatever the policy (never
//     danger-full-access), with /tmp and $TMPDIR read-only and no
//     network, so that what Codex runs on its own writes in the
//     workspace and nowhere else.
//   - approvalPolicy: "untrusted" while commands ask (ask, allow-writes):
//     Codex asks before every command and every patch, and nexus answers
//     the kinds the thread allows. An allowed command runs in the
//     sandbox, but Codex takes the approval as trust: should the sandbox
//     stop the command, Codex runs it again outside the sandbox without
//     asking again. "never" once commands are allowed (allow-commands,
//     allow-all): Codex asks nothing, so nothing is ever approved, and
//     a command the sandbox stops fails; Codex refuses a command the
//     model asks to run outside the sandbox and a patch outside the
//     workspace. Codex has no policy that runs commands unasked yet asks
//     before patches, and nexus answering untrusted's command approvals
//     itself would let each one leave the sandbox unseen; since a
//     sandboxed command may write the workspace anyway, allow-commands
//     lets patches in the workspace through too.
//
// Whatever the policy, nexus declines a patch outside the workspace
// itself (requests.go): Codex applies an accepted patch wherever it
// points.
const sandboxMode = "workspace-write"

// approvalPolicy is Codex's approvalPolicy for a thread's policy.
func approvalPolicy(p core.Policy) string {
	if p.Allows("command") {
		return "never"
	}
	return "untrusted"
}

// sandboxConfig is the thread's sandbox_workspace_write configuration:
// the workspace (Codex's cwd) is its only writable root.
func sandboxConfig() map[string]any {
	return map[string]any{"sandbox_workspace_write": map[string]any{"exclude_slash_tmp": true,
		"exclude_tmpdir_env_var": true, "network_access": false}}
}

// sandboxPolicy is the same sandbox as turn/start takes it.
func sandboxPolicy() map[string]any {
	return map[string]any{"type": "workspaceWrite", "writableRoots": []any{}, "networkAccess": false,
		"excludeSlashTmp": true, "excludeTmpdirEnvVar": true}
}

// withPolicy adds the policy to the params of a call that opens a thread
// (thread/start, thread/resume, thread/fork).
func withPolicy(params map[string]any, t *core.Turn) map[string]any {
	params["approvalPolicy"] = approvalPolicy(policyOf(t))
	params["sandbox"] = sandboxMode
	params["config"] = sandboxConfig()
	return params
}

func policyOf(t *core.Turn) core.Policy {
	if t == nil {
		return core.Policy{}
	}
	return t.Policy
}
