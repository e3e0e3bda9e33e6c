package compact

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/layout/merge"
)

// BenchmarkCommitTimes times the git calls that date a teammate's typed
// memories (one git log, one git status) in a repository of 2,001
// commits, 200 of them merges.
func BenchmarkCommitTimes(b *testing.B) {
	layouttest.IsolatedGit(b)
	g := merge.Git{Dir: mergyRepo(b, 200)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(commitTimes(g)) == 0 {
			b.Fatal("git dated no memory")
		}
	}
}

// mergyRepo makes a git repository of rounds rounds of ten commits: four
// on a side branch and five on main, each changing a typed memory (of
// 200) and three code files, then a merge of the side branch into main,
// which in one round of four also resolves a memory both changed. It
// returns the memory folder.
func mergyRepo(b *testing.B, rounds int) string {
	b.Helper()
	dir := b.TempDir()
	fi := &fastImport{}
	main := fi.commit("main", nil, fi.change("m", 0, 0))
	for r := 0; r < rounds; r++ {
		side, changed := main, map[string]string{}
		for j := 0; j < 4; j++ {
			ch := fi.change("s", r*9+j, r)
			side = fi.commit("side", []int{side}, ch)
			for p, text := range ch {
				changed[p] = text
			}
		}
		for j := 0; j < 5; j++ {
			main = fi.commit("main", []int{main}, fi.change("m", r*9+4+j, r))
		}
		if r%4 == 0 {
			changed[memPath(r*9)] = fmt.Sprintf("---\ntype: project\n---\nresolved in round %d\n", r)
		}
		main = fi.commit("main", []int{main, side}, changed)
	}
	for _, args := range [][]string{{"init", "-q"}, {"fast-import", "--quiet"}, {"symbolic-ref", "HEAD", "refs/heads/main"}, {"reset", "-q", "--hard"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if args[0] == "fast-import" {
			cmd.Stdin = strings.NewReader(fi.String())
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	return filepath.Join(dir, "beacon", "memory")
}

func memPath(i int) string { return fmt.Sprintf("beacon/memory/project_m%03d.md", i%200) }

// fastImport writes a git fast-import stream.
type fastImport struct {
	strings.Builder
	marks int
}

// change is the files a commit of round r changes: memory i and three
// code files.
func (fi *fastImport) change(who string, i, r int) map[string]string {
	ch := map[string]string{memPath(i): fmt.Sprintf("---\ntype: project\n---\n%s %d in round %d\n", who, i, r)}
	for k := 0; k < 3; k++ {
		ch[fmt.Sprintf("src/f%03d.go", (fi.marks*3+k)%200)] = fmt.Sprintf("package src // %d\n", fi.marks)
	}
	return ch
}

// commit adds a commit to branch with parents (marks) and the changed
// files, an hour after the one before, and returns its mark.
func (fi *fastImport) commit(branch string, parents []int, files map[string]string) int {
	fi.marks++
	fmt.Fprintf(fi, "commit refs/heads/%s\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata 2\nc\n", branch, fi.marks, 1767225600+fi.marks*3600)
	for i, p := range parents {
		kind := "merge"
		if i == 0 {
			kind = "from"
		}
		fmt.Fprintf(fi, "%s :%d\n", kind, p)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(fi, "M 100644 inline %s\ndata %d\n%s\n", p, len(files[p]), files[p])
	}
	fi.WriteString("\n")
	return fi.marks
}
