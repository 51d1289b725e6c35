package natsjournal

import (
	"regexp"
	"strings"
	"testing"
)

// Every project key maps to valid, distinct server names; a key that is
// already a valid name is kept as it is.
func TestNames(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)
	long := strings.Repeat("x", 200)
	cases := []struct{ key, want string }{
		{"acme", "acme"},
		{"acme-web_2", "acme-web_2"},
		{"acme/web app", ""},
		{"acme.web", ""},
		{"acme_web", "acme_web"},
		{"nexus>*", ""},
		{"ünïcode", ""},
		{"_", ""},
		{long, ""},
		{long + "y", ""},
	}
	seen := map[string]string{}
	for _, c := range cases {
		n, err := namesFor(c.key)
		if err != nil {
			t.Fatalf("%q: %v", c.key, err)
		}
		tok := strings.TrimPrefix(n.stream, streamPrefix)
		if c.want != "" && tok != c.want {
			t.Errorf("%q became %q, want it kept", c.key, tok)
		}
		if c.want == "" && !strings.Contains(tok, "-") {
			t.Errorf("%q became %q, which does not carry its hash", c.key, tok)
		}
		for _, name := range []string{n.stream, n.bucket, tok} {
			if !valid.MatchString(name) {
				t.Errorf("%q gives the invalid name %q", c.key, name)
			}
		}
		if other, ok := seen[tok]; ok {
			t.Errorf("%q and %q share the name %q", c.key, other, tok)
		}
		seen[tok] = c.key
		if want := "nexus." + tok + ".j."; n.subject != want {
			t.Errorf("%q: subject prefix %q, want %q", c.key, n.subject, want)
		}
	}
	for _, key := range []string{"", "  "} {
		if _, err := namesFor(key); err == nil {
			t.Errorf("the project key %q was taken", key)
		}
	}
	if threadToken("") != projectWide || threadToken("_") == projectWide || threadToken("t3f9a2c") != "t3f9a2c" {
		t.Errorf("thread tokens: %q %q %q", threadToken(""), threadToken("_"), threadToken("t3f9a2c"))
	}
}
