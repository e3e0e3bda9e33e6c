package layout

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckReportsBadTemplateOverrides: doctor names each template
// override tmem cannot use, at its line, and leaves good ones alone.
func TestCheckReportsBadTemplateOverrides(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	for name, body := range map[string]string{
		"SOUL.md":                "# {{title}}\nx\x00y\n",
		"memory-instructions.md": "ok\nbad \xff byte\n",
		"WISDOM.md":              strings.Repeat("a", MaxFileSize+1),
		"GOALS.md":               "# Goals\n\nOurs.\n",
	} {
		write(t, filepath.Join(ws.Root, "templates", name), body)
	}
	got := templateFindings(t, ws)
	const tail = ": tmem cannot use this template override (context falls back to the built-in one, init and compact stop on it); fix or remove it"
	want := []string{
		"templates/SOUL.md:2: error: binary file: contains a NUL byte" + tail,
		"templates/WISDOM.md: error: file is 4.0 MiB, over the 4.0 MiB limit for memory files" + tail,
		"templates/memory-instructions.md:2: error: invalid UTF-8 (byte 0xff at offset 7)" + tail,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCheckWarnsOfStrayTemplates: a file in templates/ named as no
// template is (a typo) is named, with the template it was surely meant
// to be.
func TestCheckWarnsOfStrayTemplates(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	write(t, filepath.Join(ws.Root, "templates", "soul.md"), "# Soul\n")
	write(t, filepath.Join(ws.Root, "templates", "GOALS.md"), "# Goals\n")
	got := templateFindings(t, ws)
	want := "templates/soul.md: warning: no template is named so, and tmem never reads it: did you mean SOUL.md?"
	if len(got) != 1 || got[0] != want {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// templateFindings is what doctor finds under templates/.
func templateFindings(t *testing.T, ws *Workspace) []string {
	t.Helper()
	findings, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		if strings.HasPrefix(f.Path, "templates/") {
			got = append(got, f.String())
		}
	}
	return got
}
