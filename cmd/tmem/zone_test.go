package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogAndContextAgreeOnToday logs at 02:00 UTC on the 28th, which is
// the evening of the 27th in New York: with --tz the entry goes in the
// daily of the zone's day, and without it the entry (the 28th's daily, a
// day ahead of New York's today) is still in the stack's recent daily logs
// of a context asked for in New York.
func TestLogAndContextAgreeOnToday(t *testing.T) {
	root := t.TempDir()
	if code, _, stderr := runTmem(t, "--dir", root, "init", "--teammate", "beacon"); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	const now = "2026-11-28T02:00:00Z"
	for _, c := range []struct{ tz, heading, file string }{
		{"America/New_York", "Evening work", "2026-11-27.md"},
		{"UTC", "Shipped the okapi fix", "2026-11-28.md"},
	} {
		if code, _, stderr := runTmem(t, "--dir", root, "--now", now, "log", "--teammate", "beacon", "--tz", c.tz, "--heading", c.heading, "done"); code != 0 {
			t.Fatalf("log --tz %s: %s", c.tz, stderr)
		}
		b, err := os.ReadFile(filepath.Join(root, ".teammates", "beacon", "memory", c.file))
		if err != nil || !strings.Contains(string(b), "## "+c.heading) {
			t.Errorf("log --tz %s: %s holds %q (%v), want the entry", c.tz, c.file, b, err)
		}
	}
	code, out, stderr := runTmem(t, "--dir", root, "--now", now, "-q", "context", "--teammate", "beacon", "--tz", "America/New_York", "what next")
	if code != 0 {
		t.Fatalf("context: %s", stderr)
	}
	_, dailies, _ := strings.Cut(out, "# Recent daily logs")
	dailies, _, _ = strings.Cut(dailies, "\n# ")
	for _, h := range []string{"Evening work", "Shipped the okapi fix"} {
		if !strings.Contains(dailies, h) {
			t.Errorf("the recent daily logs leave out %q:\n%s", h, dailies)
		}
	}
	if code, _, stderr := runTmem(t, "--dir", root, "log", "--teammate", "beacon", "--tz", "Mars/Olympus", "x"); code != 2 || !strings.Contains(stderr, `--tz "Mars/Olympus"`) {
		t.Errorf("log --tz Mars/Olympus: exit %d, %s; want a usage error", code, stderr)
	}
}

// TestNowAsADayInAnyZone: a --now given as a day is that day in the zone
// of --tz, even 13 hours east of the local one: context shows it, and log
// writes its daily.
func TestNowAsADayInAnyZone(t *testing.T) {
	root := t.TempDir()
	if code, _, stderr := runTmem(t, "--dir", root, "init", "--teammate", "beacon"); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	for _, tz := range []string{"Pacific/Auckland", "Pacific/Kiritimati", "Pacific/Pago_Pago"} {
		code, out, stderr := runTmem(t, "--dir", root, "--now", "2026-11-20", "-q", "context", "--teammate", "beacon", "--tz", tz, "x")
		if code != 0 || !strings.Contains(out, "Friday, 2026-11-20 12:00 ") {
			t.Errorf("context --tz %s: exit %d, %s; want Friday, 2026-11-20 at midday", tz, code, stderr)
		}
		if code, _, stderr := runTmem(t, "--dir", root, "--now", "2026-11-20", "log", "--teammate", "beacon", "--tz", tz, "--heading", tz, "x"); code != 0 {
			t.Fatalf("log --tz %s: %s", tz, stderr)
		}
	}
	b, err := os.ReadFile(filepath.Join(root, ".teammates", "beacon", "memory", "2026-11-20.md"))
	if err != nil || strings.Count(string(b), "## Pacific/") != 3 {
		t.Errorf("the 2026-11-20 daily holds %q (%v), want the three entries", b, err)
	}
}
