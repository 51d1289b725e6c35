package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Every subcommand's --help lists its usage and flags on stdout and exits
// 0; nexus --version prints the version.
func TestHelpAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"send", "--help"}, []string{"usage: nexus send THREAD", "-mode", "-no-wait"}},
		{[]string{"respond", "-h"}, []string{"usage: nexus respond REQUEST", "-allow", "-deny", "-answer"}},
		{[]string{"thread", "show", "--help"}, []string{"usage: nexus thread show THREAD", "-json"}},
		{[]string{"host", "stop", "--help"}, []string{"usage: nexus host stop", "-force"}},
		{[]string{"--version"}, []string{"nexus " + "0."}},
	} {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), tc.args, strings.NewReader(""), &out, &errOut)
		if code != ExitOK || errOut.Len() != 0 {
			t.Errorf("nexus %v: exit %d, stderr %q; want 0 and nothing", tc.args, code, errOut.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("nexus %v printed %q; want %q in it", tc.args, out.String(), w)
			}
		}
	}
}

// send - with a message over the limit says its real size, before any
// host is involved.
func TestSendStdinTooLongSaysItsSize(t *testing.T) {
	var out, errOut bytes.Buffer
	msg := strings.Repeat("a", 380000)
	code := Run(context.Background(), []string{"--state-dir", t.TempDir(), "send", "t1", "-"}, strings.NewReader(msg), &out, &errOut)
	if code != ExitUsage || !strings.Contains(errOut.String(), "380000 bytes, over the limit of 262144") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming 380000 bytes", code, errOut.String())
	}
}
