package merge_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/compact"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/layout/merge"
)

// TestMain lets the test binary serve as git's merge driver: git runs it
// as "<test binary> merge-driver %O %A %B %P".
func TestMain(m *testing.M) {
	if len(os.Args) == 6 && os.Args[1] == "merge-driver" {
		res, err := merge.Driver(os.Args[2], os.Args[3], os.Args[4], os.Args[5])
		for _, n := range res.Notes {
			fmt.Fprintln(os.Stderr, n)
		}
		if err != nil || res.Conflicts > 0 {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// gitEnv isolates git from the user's config.
func gitEnv(t *testing.T) { layouttest.IsolatedGit(t) }

// git runs git in dir and fails the test on an error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// strategy is how the clones merge memory files.
type strategy string

const (
	useDriver strategy = "driver"
	useUnion  strategy = "union"
	// useMissing registers the driver to run a program that is not there.
	useMissing strategy = "missing"
)

// clone is one machine's checkout of the shared repository.
type clone struct {
	dir string
	ws  *layout.Workspace
}

// newOrigin makes a bare repository holding a workspace with teammate
// beacon, seeded by seed, and set to merge memory files by strategy.
func newOrigin(t *testing.T, s strategy, seed func(c *clone)) string {
	t.Helper()
	origin := filepath.Join(t.TempDir(), "origin.git")
	git(t, t.TempDir(), "init", "--quiet", "--bare", "-b", "main", origin)
	dir := filepath.Join(t.TempDir(), "seed")
	git(t, filepath.Dir(dir), "clone", "--quiet", origin, dir)
	if _, err := layout.Init(dir, []layout.TeammateSpec{{Name: "beacon"}}); err != nil {
		t.Fatal(err)
	}
	if s == useUnion {
		if err := os.WriteFile(filepath.Join(dir, layout.DirName, ".gitattributes"), []byte("*.md merge=union\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := open(t, dir, s)
	if seed != nil {
		seed(c)
	}
	c.commit(t, "seed")
	git(t, dir, "push", "--quiet", "origin", "HEAD:main")
	return origin
}

// newClone clones origin as one machine.
func newClone(t *testing.T, origin, name string, s strategy) *clone {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	git(t, filepath.Dir(dir), "clone", "--quiet", "-b", "main", origin, dir)
	return open(t, dir, s)
}

func open(t *testing.T, dir string, s strategy) *clone {
	t.Helper()
	switch s {
	case useDriver:
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		if err := (merge.Git{Dir: dir}).Register(exe); err != nil {
			t.Fatal(err)
		}
	case useMissing:
		if err := (merge.Git{Dir: dir}).Register(filepath.Join(t.TempDir(), "no such tmem")); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := layout.Open(filepath.Join(dir, layout.DirName))
	if err != nil {
		t.Fatal(err)
	}
	return &clone{dir: dir, ws: ws}
}

func (c *clone) commit(t *testing.T, msg string) {
	t.Helper()
	git(t, c.dir, "add", "-A")
	if out, _ := gitErr(c.dir, "status", "--porcelain"); out != "" {
		git(t, c.dir, "commit", "--quiet", "-m", msg)
	}
}

// pull fetches origin and merges it; it returns git's error, if any.
func (c *clone) pull(t *testing.T) (string, error) {
	t.Helper()
	git(t, c.dir, "fetch", "--quiet", "origin")
	return gitErr(c.dir, "merge", "--no-edit", "origin/main")
}

func (c *clone) push(t *testing.T) {
	t.Helper()
	git(t, c.dir, "push", "--quiet", "origin", "HEAD:main")
}

func (c *clone) log(t *testing.T, at time.Time, heading, text string) {
	t.Helper()
	if _, err := c.ws.AppendDaily(context.Background(), "beacon", at, heading, text, layout.Stamped); err != nil {
		t.Fatal(err)
	}
}

// logOn appends an entry stamped at to the daily of day (YYYY-MM-DD).
func (c *clone) logOn(t *testing.T, day string, at time.Time, heading, text string) {
	t.Helper()
	rel := "beacon/memory/" + day + ".md"
	src := strings.TrimRight(string(c.read(t, rel)), "\n")
	src += "\n\n## " + heading + "\n" + layout.Stamp(at) + "\n\n" + text + "\n"
	if err := c.ws.WriteFile(rel, []byte(src)); err != nil {
		t.Fatal(err)
	}
}

func (c *clone) remember(t *testing.T, at time.Time, topic, body string) {
	t.Helper()
	mode := layout.ModeCreate
	rel := layout.TypedPath("beacon", "project", strings.ReplaceAll(topic, " ", "_"))
	if _, err := c.ws.Lstat(rel); err == nil {
		mode = layout.ModeAppend
	}
	m := layout.Memory{Type: "project", Topic: topic, Name: topic, Description: "about " + topic, Body: body, At: at}
	if _, err := c.ws.WriteMemory(context.Background(), "beacon", m, mode, layout.Stamped); err != nil {
		t.Fatal(err)
	}
}

func (c *clone) read(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := c.ws.ReadFile(rel, layout.MaxArchiveSize)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// entries lists a memory file's entries as "heading\ntext", sorted.
func entries(t *testing.T, rel string, src []byte) []string {
	t.Helper()
	d, err := layout.Parse(rel, src)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", rel, err, src)
	}
	var out []string
	for _, e := range d.Entries {
		out = append(out, e.Heading+"\n"+e.Text)
	}
	sort.Strings(out)
	return out
}

// compactAt runs the real compaction (extractive, offline) on the clone
// as of now, with stubs kept stubDays (0: the default).
func compactAt(t *testing.T, c *clone, now time.Time, stubDays int) *compact.Result {
	t.Helper()
	return compactWith(t, c, compact.Options{Now: func() time.Time { return now }, KeepStubDays: stubDays})
}

func compactWith(t *testing.T, c *clone, opts compact.Options) *compact.Result {
	t.Helper()
	res, err := compact.Run(context.Background(), c.ws, opts)
	if err != nil {
		t.Fatalf("compact at %s: %v", opts.Now().Format(layout.DateLayout), err)
	}
	return res
}
