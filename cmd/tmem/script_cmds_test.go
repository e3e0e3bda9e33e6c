package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// serve DIR serves DIR over HTTP on loopback for the rest of the script
	// and sets $SERVER_URL.
	"serve": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: serve DIR")
		}
		srv := httptest.NewServer(http.FileServer(http.Dir(ts.MkAbs(args[0]))))
		ts.Defer(srv.Close)
		ts.Setenv("SERVER_URL", srv.URL)
	},
	// tinymodel DIR copies the committed tiny model into DIR: opening a
	// model writes a sums cache beside it, never into the source tree.
	"tinymodel": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 || neg {
			ts.Fatalf("usage: tinymodel DIR")
		}
		ts.Check(os.CopyFS(ts.MkAbs(args[0]), os.DirFS(minilmtest.TinyDir())))
	},
	// unprivileged CMD ARGS... runs CMD like exec, subject to file
	// permissions even when the tests run as root: root then runs it
	// through setpriv without the capabilities that override them.
	"unprivileged": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) == 0 {
			ts.Fatalf("usage: unprivileged CMD ARGS...")
		}
		if os.Geteuid() == 0 {
			if _, err := exec.LookPath("setpriv"); err != nil {
				ts.Fatalf("running as root, setpriv (util-linux) is needed to test file permissions: %v", err)
			}
			args = append([]string{"setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"}, args...)
		}
		err := ts.Exec(args[0], args[1:]...)
		if err != nil {
			ts.Logf("[%v]", err)
		}
		if (err != nil) != neg {
			ts.Fatalf("unexpected command %s", map[bool]string{true: "success", false: "failure"}[neg])
		}
	},
	// snapshot DIR FILE writes one line per entry under DIR (path, type,
	// permissions, size, sha256 of regular files; links are not followed),
	// so that cmp can show nothing changed.
	"snapshot": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 || neg {
			ts.Fatalf("usage: snapshot DIR FILE")
		}
		root := ts.MkAbs(args[0])
		var b strings.Builder
		ts.Check(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			sum := ""
			if fi.Mode().IsRegular() {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				sum = fmt.Sprintf("%x", sha256.Sum256(data))
			}
			fmt.Fprintf(&b, "%s %v %d %s\n", filepath.ToSlash(rel), fi.Mode(), fi.Size(), sum)
			return nil
		}))
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
	},
	// checkappends FILE PROCS N checks that a daily log holds the entries
	// "p<i> n<j>" for every process i and count j, each whole (heading and
	// body together) and, per process, in order.
	"checkappends": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: checkappends FILE PROCS N")
		}
		procs, err := strconv.Atoi(args[1])
		ts.Check(err)
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		d, err := layout.Parse(args[0], []byte(ts.ReadFile(args[0])))
		ts.Check(err)
		next := make([]int, procs)
		for _, e := range d.Entries {
			var p, j int
			if _, err := fmt.Sscanf(e.Heading, "p%d n%d", &p, &j); err != nil || p >= procs {
				ts.Fatalf("unexpected entry %q at line %d", e.Heading, e.Start)
			}
			if j != next[p] {
				ts.Fatalf("process %d: entry n%d where n%d was due (line %d)", p, j, next[p], e.Start)
			}
			want := fmt.Sprintf("payload from p%d n%d: the quick brown fox jumps over the lazy dog", p, j)
			if e.Text != want {
				ts.Fatalf("entry %q is not whole: %q", e.Heading, e.Text)
			}
			next[p]++
		}
		for p, got := range next {
			if got != n {
				ts.Fatalf("process %d: %d entries landed, want %d", p, got, n)
			}
		}
	},
	// bigfile PATH MB writes a file of MB mebibytes of Markdown-looking text.
	"bigfile": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: bigfile PATH MB")
		}
		mb, err := strconv.Atoi(args[1])
		ts.Check(err)
		line := []byte("- a line of a very long daily log entry that goes on and on\n")
		var b bytes.Buffer
		b.WriteString("# 2026-03-14\n\n## Huge\n\n")
		for b.Len() < mb<<20 {
			b.Write(line)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o644))
	},
	// jsonlen FILE N checks that FILE holds a JSON array of N elements.
	"jsonlen": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: jsonlen FILE N")
		}
		var v []json.RawMessage
		if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &v); err != nil {
			ts.Fatalf("%s is not a JSON array: %v", args[0], err)
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		if (len(v) == n) == neg {
			ts.Fatalf("%s has %d elements, want %s%d", args[0], len(v), map[bool]string{true: "not ", false: ""}[neg], n)
		}
	},
	// jsonkeys FILE KEY... checks every object of the JSON array (or the
	// object) in FILE has exactly these keys.
	"jsonkeys": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: jsonkeys FILE KEY...")
		}
		data := []byte(ts.ReadFile(args[0]))
		var objs []map[string]json.RawMessage
		if err := json.Unmarshal(data, &objs); err != nil {
			var one map[string]json.RawMessage
			if err := json.Unmarshal(data, &one); err != nil {
				ts.Fatalf("%s: not a JSON object or array of objects: %v", args[0], err)
			}
			objs = append(objs, one)
		}
		if len(objs) == 0 {
			ts.Fatalf("%s: empty array, nothing to check", args[0])
		}
		for i, o := range objs {
			got := fmt.Sprint(sortedKeys(o))
			want := fmt.Sprint(sortedStrings(args[1:]))
			if (got == want) == neg {
				ts.Fatalf("%s[%d] keys %s, want %s", args[0], i, got, want)
			}
		}
	},
}
