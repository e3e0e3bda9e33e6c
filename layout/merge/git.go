package merge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// DriverName is the merge driver's name in git config and in the
// workspace's .gitattributes (layout.GitAttributes).
const DriverName = "tmem"

// Driver merges the files git hands a merge driver (%O %A %B %P): base,
// ours (the result is written over it), theirs, and the path in the
// repository. It returns the merge's result; git takes a result with
// conflicts as a conflict.
func Driver(base, ours, theirs, path string) (Result, error) {
	var vs [3][]byte
	for i, f := range []string{base, ours, theirs} {
		b, err := readVersion(f)
		if err != nil {
			return Result{}, fmt.Errorf("merge %s: %w", path, err)
		}
		vs[i] = b
	}
	res, err := Merge(filepath.ToSlash(path), vs[0], vs[1], vs[2])
	if err != nil {
		return res, err
	}
	if err := os.WriteFile(ours, res.Data, 0o644); err != nil {
		return res, fmt.Errorf("merge %s: %w", path, err)
	}
	return res, nil
}

// readVersion reads one version git hands the driver: a regular file
// (a named pipe or a device in its place is refused, never waited on),
// read no further than one byte past the limit Merge enforces.
func readVersion(name string) ([]byte, error) {
	f, err := layout.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, layout.MaxArchiveSize+1))
}

// Git runs git in a folder of a repository.
type Git struct {
	Dir string
}

func (g Git) run(stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = g.Dir, stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Output runs git with args in the folder and returns what it wrote to
// standard output; an error holds what it wrote to standard error.
func (g Git) Output(args ...string) ([]byte, error) { return g.run(nil, args...) }

// InRepo reports whether the folder is inside a git work tree.
func (g Git) InRepo() bool {
	out, err := g.run(nil, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// driver is the command the repository's config defines for the driver,
// "" when none.
func (g Git) driver() (string, error) {
	out, err := g.run(nil, "config", "--get", "merge."+DriverName+".driver")
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return "", nil
	}
	return strings.TrimSpace(string(out)), err
}

// oldDriverArgs ends the command an earlier tmem registered, which ran
// the program bare, with no fallback where git cannot find it.
const oldDriverArgs = " merge-driver %O %A %B %P"

// withoutFallback returns the program of a driver command an earlier tmem
// registered: the bare one, or the first fallback, whose message put the
// file name inside double quotes, where a name's $(…) ran. ok is false
// for any other command (the current one, or one a person wrote).
func withoutFallback(v string) (program string, ok bool) {
	if rest, found := strings.CutPrefix(v, "if command -v '"); found && strings.Contains(v, `merging %P line by line`) {
		quoted, _, _ := strings.Cut(rest, "' >/dev/null")
		program = strings.ReplaceAll(quoted, `'\''`, "'")
		return program, program != "" && driverCommand(program) != v
	}
	program, ok = strings.CutSuffix(v, oldDriverArgs)
	return program, ok && program != "" && !strings.ContainsAny(program, " '\"$;|&")
}

// Register defines the driver in the repository's local config (never the
// user's global one), to run command ("tmem", or a path to it).
func (g Git) Register(command string) error {
	if _, err := g.run(nil, "config", "--local", "merge."+DriverName+".name", "tmem memory files, entry by entry"); err != nil {
		return err
	}
	_, err := g.run(nil, "config", "--local", "merge."+DriverName+".driver", driverCommand(command))
	return err
}

// driverCommand is the shell command git runs to merge a memory file with
// command. Where git cannot find command (a GUI client's PATH, a binary
// moved or removed), a driver that fails leaves our side alone in the
// file, without conflict markers: committing it would drop the other
// side's entries. So the command falls back to git merge-file, which
// marks the conflicts as a merge without the driver would, and says why.
func driverCommand(command string) string {
	q := shellQuote(command)
	// Git puts each %-path in single quotes: they are used bare, never
	// inside double quotes, where a file name's $(…) would run.
	return "if command -v " + q + " >/dev/null 2>&1; then " + q + " merge-driver %O %A %B %P; " +
		"else echo \"tmem merge driver: \"" + q + "\" not found; merging \"%P\" line by line, with conflict markers\" >&2; " +
		"git merge-file -L ours -L base -L theirs %A %O %B; fi"
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ResolveDeleted settles the modify/delete conflicts a merge left on daily
// logs of the workspace w (see Deleted) and stages the result. It returns
// a note for each file settled.
func (g Git) ResolveDeleted(w *layout.Workspace) ([]string, error) {
	top, err := g.run(nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	root := Git{Dir: strings.TrimSpace(string(top))}
	out, err := root.run(nil, "ls-files", "-u", "-z")
	if err != nil {
		return nil, err
	}
	var notes []string
	stages := unmerged(out)
	paths := make([]string, 0, len(stages))
	for p := range stages {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		st := stages[path]
		if st[1] == "" || (st[2] == "") == (st[3] == "") || !dailyPath().MatchString(path) {
			continue
		}
		note, err := root.resolveOne(w, path, st)
		if err != nil {
			return notes, err
		}
		notes = append(notes, note)
	}
	return notes, nil
}

// resolveOne settles one deleted daily; st holds the blob of each stage.
func (g Git) resolveOne(w *layout.Workspace, path string, st [4]string) (string, error) {
	kept := st[2]
	side := "here"
	if kept == "" {
		kept, side = st[3], "on the other side"
	}
	base, err := g.run(nil, "cat-file", "blob", st[1])
	if err != nil {
		return "", err
	}
	body, err := g.run(nil, "cat-file", "blob", kept)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(w.Root, filepath.Join(g.Dir, path))
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("merge %s: not in the workspace %s", path, w.Root)
	}
	rel = filepath.ToSlash(rel)
	_, err = w.Lstat(layout.ArchivePath(strings.SplitN(rel, "/", 2)[0], strings.TrimSuffix(filepath.Base(rel), ".md")[:7]))
	data, n, err := Deleted(path, base, body, err == nil)
	if err != nil {
		return "", err
	}
	if n == 0 {
		if _, err := g.run(nil, "rm", "--quiet", "--", path); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: compaction removed it and nothing was appended since: removed", path), nil
	}
	if err := w.WriteFile(rel, data); err != nil {
		return "", err
	}
	if _, err := g.run(nil, "add", "--", path); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: compaction removed it while %d entr%s appended %s; kept them in the daily for the next compaction to fold in", path, n, plural(n), side), nil
}

func plural(n int) string {
	if n == 1 {
		return "y was"
	}
	return "ies were"
}

// unmerged reads `git ls-files -u -z`: the blob of each stage by path.
func unmerged(out []byte) map[string][4]string {
	m := map[string][4]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || len(f[2]) != 1 || f[2][0] < '1' || f[2][0] > '3' {
			continue
		}
		st := m[path]
		st[f[2][0]-'0'] = f[1]
		m[path] = st
	}
	return m
}
