package merge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

// TestSetupDriver: doctor reports a repository without the driver, --fix
// sets it up (with its fallback) once; a driver an earlier tmem set up
// without the fallback is reported and set up again for its program; a
// driver a person wrote is left alone.
func TestSetupDriver(t *testing.T) {
	gitEnv(t)
	dir := t.TempDir()
	git(t, dir, "init", "--quiet")
	if _, err := layout.Init(dir, []layout.TeammateSpec{{Name: "beacon"}}); err != nil {
		t.Fatal(err)
	}
	w, err := layout.Open(filepath.Join(dir, layout.DirName))
	if err != nil {
		t.Fatal(err)
	}
	driver := func() string { return strings.TrimSpace(git(t, dir, "config", "--get", "merge.tmem.driver")) }
	check := func(want string) {
		t.Helper()
		fs := merge.Check(w)
		if (want == "") != (len(fs) == 0) || want != "" && !strings.Contains(fs[0].Message, want) {
			t.Errorf("Check = %+v, want %q", fs, want)
		}
	}
	fix := func(changed bool) {
		t.Helper()
		did, err := merge.Fix(w, "tmem")
		if err != nil || (len(did) > 0) != changed {
			t.Errorf("Fix = %q, %v; want changed %v", did, err, changed)
		}
	}

	check("is not set up")
	fix(true)
	if d := driver(); !strings.HasPrefix(d, "if command -v 'tmem' ") || !strings.Contains(d, "git merge-file") {
		t.Errorf("driver %q", d)
	}
	check("")
	fix(false)

	git(t, dir, "config", "merge.tmem.driver", "/opt/tmem/bin/tmem merge-driver %O %A %B %P")
	check("set up by an earlier tmem")
	fix(true)
	if d := driver(); !strings.HasPrefix(d, "if command -v '/opt/tmem/bin/tmem' ") {
		t.Errorf("driver set up again %q, want it for /opt/tmem/bin/tmem", d)
	}

	// The first fallback put %P inside double quotes.
	git(t, dir, "config", "merge.tmem.driver", `if command -v '/opt/tmem/bin/tmem' >/dev/null 2>&1; then '/opt/tmem/bin/tmem' merge-driver %O %A %B %P; else echo "tmem merge driver: "'/opt/tmem/bin/tmem'" not found; merging %P line by line, with conflict markers" >&2; git merge-file -L ours -L base -L theirs %A %O %B; fi`)
	check("set up by an earlier tmem")
	fix(true)
	if d := driver(); strings.Contains(d, "merging %P") || !strings.Contains(d, `merging "%P" line by line`) {
		t.Errorf("driver set up again %q, want %%P out of the double quotes", d)
	}

	git(t, dir, "config", "merge.tmem.driver", "my-merger %O %A %B")
	check("")
	fix(false)
	if d := driver(); d != "my-merger %O %A %B" {
		t.Errorf("a person's driver became %q", d)
	}

	// A workspace made by hand, with no .gitignore: git would track .tmp/.
	if err := os.Remove(filepath.Join(w.Root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	check("git would track the recall indexes and .tmp/")
	fix(true)
	if b, err := os.ReadFile(filepath.Join(w.Root, ".gitignore")); err != nil || string(b) != layout.Gitignore {
		t.Errorf(".gitignore %q, %v; want what init writes", b, err)
	}
	check("")
}
