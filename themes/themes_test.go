package themes

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestResolve(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{"", nil, Dark, false},
		{"light", nil, Light, false},
		{"high-contrast", nil, HighContrast, false},
		{"none", nil, None, false},
		{"light", map[string]string{"NO_COLOR": "1"}, None, false},
		{"", map[string]string{"NO_COLOR": ""}, Dark, false}, // empty NO_COLOR does not count
		{"solarized", nil, "", true},
		{"solarized", map[string]string{"NO_COLOR": "1"}, "", true},
	}
	for _, c := range cases {
		th, err := Resolve(c.name, env(c.env))
		if (err != nil) != c.wantErr {
			t.Errorf("Resolve(%q, %v) error = %v, wantErr %v", c.name, c.env, err, c.wantErr)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), "dark, light, high-contrast, none") {
				t.Errorf("error %q does not list the themes", err)
			}
			continue
		}
		if th.Name != c.want {
			t.Errorf("Resolve(%q, %v) = %s, want %s", c.name, c.env, th.Name, c.want)
		}
	}
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// hasColour reports whether s sets a foreground or background colour:
// SGR 30-38, 40-48, 90-97 or 100-107 (38 and 48 start an extended colour
// whose own parameters are skipped).
func hasColour(s string) bool {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.Split(m[1], ";") {
			p, _, _ = strings.Cut(p, ":")
			n, err := strconv.Atoi(p)
			if err != nil {
				continue
			}
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				return true
			}
		}
	}
	return false
}

// styles lists every lipgloss.Style field of a Styles value.
func styles(s Styles) map[string]lipgloss.Style {
	out := map[string]lipgloss.Style{}
	v := reflect.ValueOf(s)
	for i := 0; i < v.NumField(); i++ {
		if st, ok := v.Field(i).Interface().(lipgloss.Style); ok {
			out[v.Type().Field(i).Name] = st
		}
	}
	return out
}

func TestNoneThemeEmitsNoColour(t *testing.T) {
	th, _ := Lookup(None)
	all := styles(NewStyles(th))
	if len(all) < 20 {
		t.Fatalf("only %d styles found; the reflection walk is broken", len(all))
	}
	for name, st := range all {
		out := st.Render("x")
		if hasColour(out) {
			t.Errorf("none theme style %s emits a colour: %q", name, out)
		}
	}
	// Emphasis survives without colour: selection and banner stand out.
	ns := NewStyles(th)
	for name, st := range map[string]lipgloss.Style{"Selected": ns.Selected, "Banner": ns.Banner} {
		if st.Render("x") == "x" {
			t.Errorf("none theme %s is indistinguishable from plain text", name)
		}
	}
}

func TestColourThemesUseColourAndDiffer(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{Dark, Light, HighContrast} {
		th, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		st := NewStyles(th)
		out := st.BadgeWaiting.Render("x") + st.Selected.Render("x") + st.Status.Render("x")
		if !hasColour(out) {
			t.Errorf("theme %s renders no colour: %q", name, out)
		}
		if other, dup := seen[out]; dup {
			t.Errorf("themes %s and %s render the same", name, other)
		}
		seen[out] = name
	}
}
