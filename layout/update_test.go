package layout

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// appendTo appends s to the file at abs the way `echo >> file` does.
func appendTo(t testing.TB, abs, s string) {
	t.Helper()
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// handEdits are the ways another program changes a daily log; each
// returns text the file must then hold.
var handEdits = map[string]func(t *testing.T, abs string, i int) string{
	"append": func(t *testing.T, abs string, i int) string {
		s := fmt.Sprintf("\n## HAND%d\n\nby hand\n", i)
		appendTo(t, abs, s)
		return s
	},
	"rewrite in place": func(t *testing.T, abs string, i int) string {
		s := fmt.Sprintf("# 2026-03-15 (edited)\n\n## REWRITTEN%d\n", i)
		if err := os.WriteFile(abs, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return s
	},
	"replace by rename": func(t *testing.T, abs string, i int) string {
		s := fmt.Sprintf("# 2026-03-15 (saved)\n\n## SAVED%d\n", i)
		if err := os.WriteFile(abs+".swp", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(abs+".swp", abs); err != nil {
			t.Fatal(err)
		}
		return s
	},
	"delete": func(t *testing.T, abs string, i int) string {
		if err := os.Remove(abs); err != nil {
			t.Fatal(err)
		}
		return ""
	},
}

func TestUpdateKeepsChangesMadeWhileItWrites(t *testing.T) {
	day := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		start     string // the file before; "" means none
		edit      string // a key of handEdits
		inFn      int    // edits while the entry is built, one per try
		beforeRen int    // edits just before the rename, one per try
		wantErr   string
	}{
		{name: "appended after the read", start: "# 2026-03-15\n", edit: "append", inFn: 2},
		{name: "created after the read", edit: "append", inFn: 1},
		{name: "appended just before the rename", start: "# 2026-03-15\n", edit: "append", beforeRen: 1},
		{name: "appended on every try", start: "# 2026-03-15\n", edit: "append", inFn: maxUpdateTries, beforeRen: maxUpdateTries},
		{name: "rewritten after the read", start: "# 2026-03-15\n", edit: "rewrite in place", inFn: 2},
		{name: "replaced after the read", start: "# 2026-03-15\n", edit: "replace by rename", inFn: 3},
		{name: "deleted after the read", start: "# 2026-03-15\n", edit: "delete", inFn: 1},
		{name: "rewritten on every try", start: "# 2026-03-15\n", edit: "rewrite in place", inFn: maxUpdateTries, wantErr: "nothing written"},
		// The instant between the check and the rename: an append is kept,
		// a rewrite is reported.
		{name: "rewritten just before the rename", start: "# 2026-03-15\n", edit: "rewrite in place", beforeRen: 1, wantErr: "in the same instant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			rel := DailyPath("beacon", day)
			abs := ws.Abs(rel)
			if tt.start != "" {
				if err := ws.WriteFile(rel, []byte(tt.start)); err != nil {
					t.Fatal(err)
				}
			}
			var kept string // what the file must hold: the last rewrite, or every append
			edits := 0
			edit := func() {
				s := handEdits[tt.edit](t, abs, edits)
				edits++
				if tt.edit == "append" {
					kept += s
				} else {
					kept = s
				}
			}
			fnCalls, renames := 0, 0
			ws.beforeRename = func() {
				if renames++; renames <= tt.beforeRen {
					edit()
				}
			}
			err := ws.update(context.Background(), "beacon", rel, func(old []byte, _ bool) ([]byte, error) {
				if fnCalls++; fnCalls <= tt.inFn {
					edit()
				}
				return appendEntry(old, day, "TM", "tool text"), nil
			})
			wantEntries := 1
			if tt.wantErr == "nothing written" {
				wantEntries = 0
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("update: %v, want an error containing %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			if tt.beforeRen == 0 || tt.edit == "append" {
				// a rewrite in the instant before the rename is reported, not kept
				if !bytes.Contains(got, []byte(kept)) {
					t.Errorf("hand edits %q lost:\n%s", kept, got)
				}
			}
			if n := strings.Count(string(got), "## TM\n"); n != wantEntries {
				t.Errorf("%d tool entries, want %d:\n%s", n, wantEntries, got)
			}
		})
	}
}

// The concurrency test re-runs this test binary as a program that appends
// sections to a daily log by hand, opening it for each one as a shell's
// ">>" does, whenever it reads a line on stdin, and answers when done.
const appenderEnv = "LAYOUT_APPENDER_CHILD"

func appenderChild(abs string) {
	in := bufio.NewScanner(os.Stdin)
	for i := 0; in.Scan(); i++ {
		f, err := os.OpenFile(abs, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			_, err = fmt.Fprintf(f, "\n## HAND%d\n\nt\n", i)
			f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("ok")
	}
}

// TestAppendDailyKeepsConcurrentHandAppends has another process append to
// a daily log at the worst moment of each AppendDaily, after its check and
// just before its rename, and checks that every section of both lands.
func TestAppendDailyKeepsConcurrentHandAppends(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	day := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	ctx := context.Background()
	if _, err := ws.AppendDaily(ctx, "beacon", day, "start", "x"); err != nil {
		t.Fatal(err)
	}
	abs := ws.Abs(DailyPath("beacon", day))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), appenderEnv+"="+abs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	answers := bufio.NewScanner(stdout)
	hand := 0
	ws.beforeRename = func() {
		fmt.Fprintln(stdin, "append")
		if !answers.Scan() {
			t.Fatalf("appender: %s", stderr.Bytes())
		}
		hand++
	}
	const tool = 40
	for i := 0; i < tool; i++ {
		if _, err := ws.AppendDaily(ctx, "beacon", day, fmt.Sprintf("TM%d", i), "t"); err != nil {
			t.Error(err)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("appender: %v: %s", err, stderr.Bytes())
	}
	got, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	if hand < tool {
		t.Fatalf("the appender ran %d times, want at least %d", hand, tool)
	}
	for i := 0; i < hand; i++ {
		if !bytes.Contains(got, []byte(fmt.Sprintf("\n## HAND%d\n", i))) {
			t.Errorf("hand-appended section HAND%d is lost", i)
		}
	}
	for i := 0; i < tool; i++ {
		if !bytes.Contains(got, []byte(fmt.Sprintf("\n## TM%d\n", i))) {
			t.Errorf("entry TM%d is lost", i)
		}
	}
}
