//go:build unix

package context

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestBuildLeavesOutALinkIntoAnotherTeammate: today's log that links into
// another teammate's folder is left out of the stack, and the note says
// it leads out of the teammate's folder, not outside the workspace.
func TestBuildLeavesOutALinkIntoAnotherTeammate(t *testing.T) {
	ws := writeFiles(t, map[string]string{
		"solo/SOUL.md":              "# Solo\n\n## Identity\n\nTests things.\n",
		"duo/SOUL.md":               "# Duo\n\n## Identity\n\nOther things.\n",
		"duo/memory/2026-11-20.md":  "# 2026-11-20\n\n## Duo's\n\nduo's day\n",
		"solo/memory/2026-11-18.md": "# 2026-11-18\n\n## Good\n\nfine\n",
	})
	if err := os.Symlink("../../duo/memory/2026-11-20.md", ws.Abs("solo/memory/2026-11-20.md")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	var warned []string
	opts := Options{Teammate: "solo", Now: fixedClock(exampleNow), Location: time.UTC, Tokenizer: mustTokenizer(t, Chars4),
		Warn: func(m string) { warned = append(warned, m) }}
	r, err := Build(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, "duo's day") {
		t.Error("the stack holds duo's log")
	}
	note := "_Today's log `.teammates/solo/memory/2026-11-20.md` was left out: it leads out of its teammate's folder (see `tmem doctor`)._"
	if !strings.Contains(r.Text, note) {
		t.Errorf("text lacks %q", note)
	}
	want := "solo/memory/2026-11-20.md: leads through a symlink to duo/memory/2026-11-20.md, out of solo's folder"
	if len(warned) != 1 || !strings.Contains(warned[0], want) {
		t.Errorf("warnings %q, want one holding %q", warned, want)
	}
}
