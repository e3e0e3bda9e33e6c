package context

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

const exampleTask = "Why are Norwave containers missing from search, and is the DLQ replay finished before the demo freeze?"

func manifestJSON(t testing.TB, m Manifest) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./context/... -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./context/... -update and review the diff\n--- got:\n%s", name, got)
	}
}

func TestBuildGolden(t *testing.T) {
	tests := []struct {
		name      string
		teammate  string
		budget    int
		tokenizer string
		vectors   bool
	}{
		{name: "beacon", teammate: "beacon", tokenizer: O200k, vectors: true},
		{name: "beacon_small_budget", teammate: "beacon", budget: 1500, tokenizer: O200k, vectors: true},
		{name: "quill_cl100k_bm25", teammate: "quill", budget: 4000, tokenizer: Cl100k},
		{name: "atlas_chars4", teammate: "atlas", budget: 3000, tokenizer: Chars4, vectors: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := copyExample(t)
			rec := &fakeRecaller{ws: ws, now: exampleNow, vectors: tt.vectors}
			opts := Options{
				Teammate: tt.teammate, Task: exampleTask, Budget: tt.budget,
				Tokenizer: mustTokenizer(t, tt.tokenizer), Now: fixedClock(exampleNow),
				Location: time.UTC, Recaller: rec,
			}
			r, err := Build(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name+".md", []byte(r.Text))
			checkGolden(t, tt.name+".json", manifestJSON(t, r.Manifest))

			again, err := Build(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if again.Text != r.Text || !bytes.Equal(manifestJSON(t, again.Manifest), manifestJSON(t, r.Manifest)) {
				t.Error("a second build with the same input differs")
			}
			checkInvariants(t, r, opts.Tokenizer)
		})
	}
}

// checkInvariants checks what must hold for every build.
func checkInvariants(t *testing.T, r *Result, tok Tokenizer) {
	t.Helper()
	m := r.Manifest
	want := []string{SectionSoul, SectionGoals, SectionWisdom, SectionRecall, SectionDailies, SectionSession,
		SectionRoster, SectionInstructions, SectionProtocol, SectionNow, SectionTask}
	if len(m.Sections) != len(want) {
		t.Fatalf("%d sections, want %d", len(m.Sections), len(want))
	}
	off := 0
	for i, s := range m.Sections {
		if s.Name != want[i] {
			t.Errorf("section %d is %q, want %q", i, s.Name, want[i])
		}
		if s.Offset != off {
			t.Errorf("section %s starts at %d, want %d", s.Name, s.Offset, off)
		}
		off += s.Bytes
		text := r.Text[s.Offset : s.Offset+s.Bytes]
		if !strings.HasPrefix(text, "# "+s.Heading+"\n") {
			t.Errorf("section %s does not start with its heading: %.40q", s.Name, text)
		}
		if n := tok.Count(text); n != s.Tokens {
			t.Errorf("section %s: manifest says %d tokens, counted %d", s.Name, s.Tokens, n)
		}
		if s.InBudget != (s.Name == SectionRecall || s.Name == SectionDailies) {
			t.Errorf("section %s: in_budget = %v", s.Name, s.InBudget)
		}
	}
	sum := 0
	for _, s := range m.Sections {
		sum += s.Tokens
	}
	// BPE pre-tokenization splits at "\n\n# ", so section counts add up
	// exactly; chars4 rounds each section up.
	if sum != m.TotalTokens && (tok.Name() != Chars4 || sum < m.TotalTokens) {
		t.Errorf("sections add up to %d tokens, the document counts %d", sum, m.TotalTokens)
	}
	if n := tok.Count(r.Text); n != m.TotalTokens {
		t.Errorf("the manifest says the document has %d tokens, counted %d", m.TotalTokens, n)
	}
	if off != len(r.Text) {
		t.Errorf("sections cover %d bytes of %d", off, len(r.Text))
	}
	b := m.Budget
	rec := tok.Count(sectionText(t, r, SectionRecall))
	dai := tok.Count(sectionText(t, r, SectionDailies))
	if rec != b.RecallUsed || dai != b.DailiesUsed || b.Used != rec+dai {
		t.Errorf("budget use: manifest %d+%d=%d, counted %d+%d", b.DailiesUsed, b.RecallUsed, b.Used, dai, rec)
	}
	if b.RecallGranted != max(b.Total-b.DailiesUsed, 0) {
		t.Errorf("recall granted %d, want total %d minus dailies %d", b.RecallGranted, b.Total, b.DailiesUsed)
	}
	todayOnly := true
	for _, d := range m.Dailies {
		if d.Today && d.Decision != Included {
			t.Errorf("today's entry %q was dropped", d.Heading)
		}
		if !d.Today && d.Decision == Included {
			todayOnly = false
		}
	}
	if b.Exceeded != (b.Used > b.Total) || b.ExceededBy != max(b.Used-b.Total, 0) {
		t.Errorf("exceeded = %v by %d, but used %d of %d", b.Exceeded, b.ExceededBy, b.Used, b.Total)
	}
	if b.Used > b.Total {
		// Only today's log may push the stack over budget.
		if !todayOnly {
			t.Errorf("over budget (%d > %d) with older daily entries included", b.Used, b.Total)
		}
		for _, it := range m.Recall.Items {
			if it.Decision == Included {
				t.Errorf("over budget (%d > %d) with recalled memory %s included", b.Used, b.Total, it.Path)
			}
		}
	}
	// Daily entries are listed newest first; the included ones are a prefix.
	dropped := false
	for _, d := range m.Dailies {
		if d.Decision == Dropped {
			dropped = true
		} else if dropped {
			t.Errorf("entry %s %q included after an older-first gap", d.Path, d.Heading)
		}
	}
	// Recall fills what is left: a memory dropped for its size would not
	// fit next to the included ones.
	used := tok.Count("# " + recallHeading + "\n\n")
	for _, it := range m.Recall.Items {
		if it.Decision == Included {
			used += it.Tokens
		}
	}
	for _, it := range m.Recall.Items {
		if it.Decision == Dropped && strings.HasPrefix(it.Why, "does not fit") && used+it.Tokens <= b.RecallGranted {
			t.Errorf("recalled memory %s (%d tokens) was dropped but fits: %d used of %d", it.Path, it.Tokens, used, b.RecallGranted)
		}
	}
}

func TestBuildEdgeCases(t *testing.T) {
	soul := "---\nrole: Tester\n---\n# Solo\n\n## Identity\n\nTests things.\n"
	bigToday := "# 2026-11-20\n\n## Huge entry\n\n" + strings.Repeat("A long line of notes about the ingest pipeline and its failures.\n", 400)
	tests := []struct {
		name  string
		files map[string]string
		opts  Options
		check func(t *testing.T, r *Result)
	}{
		{
			name:  "empty teammate with only SOUL.md",
			files: map[string]string{"solo/SOUL.md": soul},
			check: func(t *testing.T, r *Result) {
				for _, want := range []string{"`.teammates/solo/GOALS.md` does not exist yet", "`.teammates/solo/WISDOM.md` does not exist yet",
					"_No log for today yet: it goes in `.teammates/solo/memory/2026-11-20.md`._", "_No recalled memories for this task._",
					"- **solo** (you) — Tester"} {
					if !strings.Contains(r.Text, want) {
						t.Errorf("text lacks %q", want)
					}
				}
				if len(r.Manifest.Dailies) != 0 || r.Manifest.Budget.Exceeded {
					t.Errorf("dailies %v, exceeded %v", r.Manifest.Dailies, r.Manifest.Budget.Exceeded)
				}
			},
		},
		{
			name:  "today's log larger than the whole budget",
			files: map[string]string{"solo/SOUL.md": soul, "solo/memory/2026-11-20.md": bigToday, "solo/memory/2026-11-19.md": "# 2026-11-19\n\n## Small\n\nx\n"},
			opts:  Options{Budget: 1000},
			check: func(t *testing.T, r *Result) {
				b := r.Manifest.Budget
				if !b.Exceeded || b.ExceededBy != b.Used-1000 || b.ExceededBy <= 0 {
					t.Errorf("budget %+v: want exceeded by used-1000", b)
				}
				if !strings.Contains(r.Text, bigToday[len("# 2026-11-20\n\n## Huge entry\n\n"):]) {
					t.Error("today's log is not whole")
				}
				if strings.Contains(r.Text, "### Small") {
					t.Error("an older entry went in over budget")
				}
				if !hasNote(r, "budget exceeded by") {
					t.Errorf("notes %q do not say the budget was exceeded", r.Manifest.Notes)
				}
			},
		},
		{
			name:  "today's log with no entries yet is shown and listed",
			files: map[string]string{"solo/SOUL.md": soul, "solo/memory/2026-11-20.md": "# 2026-11-20\n"},
			check: func(t *testing.T, r *Result) {
				if want := "(today) — .teammates/solo/memory/2026-11-20.md"; !strings.Contains(r.Text, want) || strings.Contains(r.Text, "No log for today yet") {
					t.Errorf("text lacks %q or says there is no log", want)
				}
				for _, s := range r.Manifest.Sections {
					if s.Name == SectionDailies && !slices.Contains(s.Sources, "solo/memory/2026-11-20.md") {
						t.Errorf("dailies sources %q lack today's log", s.Sources)
					}
				}
			},
		},
		{
			name: "merge conflict markers and entry stamps are not shown",
			files: map[string]string{"solo/SOUL.md": soul,
				"solo/WISDOM.md":            "# Wisdom\n\n<<<<<<< ours\n## Pin images\n\nPin CI images.\n=======\n## Pin images\n\nPin every image.\n>>>>>>> theirs\n",
				"solo/memory/2026-11-20.md": "# 2026-11-20\n\n## Deploy\n<!-- tmem:at 2026-11-20T09:00:00Z -->\n\nrolled back\n"},
			check: func(t *testing.T, r *Result) {
				for _, bad := range []string{"<<<<<<<", "=======", ">>>>>>>", "tmem:at"} {
					if strings.Contains(r.Text, bad) {
						t.Errorf("text holds %q", bad)
					}
				}
				for _, want := range []string{"Pin CI images.", "Pin every image.", "rolled back"} {
					if !strings.Contains(r.Text, want) {
						t.Errorf("text lacks %q", want)
					}
				}
			},
		},
		{
			name: "files with CRLF line endings read as LF, setext headings demoted",
			files: map[string]string{"solo/SOUL.md": "Solo\r\n====\r\n\r\nIdentity\r\n--------\r\n\r\nTests things.\r\n",
				"solo/memory/2026-11-20.md": "# 2026-11-20\r\n\r\n## Deploy\r\n<!-- tmem:at 2026-11-20T09:00:00Z -->\r\n\r\nrolled back\r\n\r\nthen forward\r\n"},
			check: func(t *testing.T, r *Result) {
				if strings.Contains(r.Text, "\r") {
					t.Error("text holds a carriage return")
				}
				for _, want := range []string{"\n## Solo\n", "\n### Identity\n", "rolled back\n\nthen forward"} {
					if !strings.Contains(r.Text, want) {
						t.Errorf("text lacks %q", want)
					}
				}
			},
		},
		{
			name:  "no recall index",
			files: map[string]string{"solo/SOUL.md": soul},
			opts:  Options{Recaller: nil},
			check: func(t *testing.T, r *Result) {
				if r.Manifest.Recall.Mode != RecallOff || !hasNote(r, "no recall index") {
					t.Errorf("mode %q notes %q", r.Manifest.Recall.Mode, r.Manifest.Notes)
				}
			},
		},
		{
			name:  "task with headings stays verbatim at the end",
			files: map[string]string{"solo/SOUL.md": soul},
			opts:  Options{Task: "# Plan\n\n## Step one\n\nDo it.\n"},
			check: func(t *testing.T, r *Result) {
				if !strings.HasSuffix(r.Text, "# Task\n\n# Plan\n\n## Step one\n\nDo it.\n") {
					t.Errorf("task section: %q", r.Text[len(r.Text)-60:])
				}
			},
		},
		{
			name: "template override",
			files: map[string]string{"solo/SOUL.md": soul,
				"templates/output-protocol.md": "Reply in haiku, {{name}}."},
			check: func(t *testing.T, r *Result) {
				if !strings.Contains(r.Text, "# Output protocol\n\nReply in haiku, solo.\n\n") {
					t.Error("override not used")
				}
				s := r.Manifest.Sections[8]
				if len(s.Sources) != 1 || s.Sources[0] != "templates/output-protocol.md" {
					t.Errorf("protocol sources %q", s.Sources)
				}
			},
		},
		{
			name: "time zone and weekday",
			files: map[string]string{"solo/SOUL.md": soul,
				"solo/memory/2026-11-20.md": "# 2026-11-20\n\n## Late\n\nx\n", "solo/memory/2026-11-21.md": "# 2026-11-21\n\n## Next day\n\ny\n"},
			opts: Options{Location: time.FixedZone("NZDT", 13*3600)},
			check: func(t *testing.T, r *Result) {
				// 09:30 UTC is 22:30 in UTC+13, still the 20th.
				if !strings.Contains(r.Text, "Friday, 2026-11-20 22:30 NZDT (UTC+13:00, NZDT)") {
					t.Errorf("now section: %q", sectionText(t, r, SectionNow))
				}
				if strings.Contains(r.Text, "Next day") {
					t.Error("a log from the future went in")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := writeFiles(t, tt.files)
			opts := tt.opts
			opts.Teammate = "solo"
			opts.Now = fixedClock(exampleNow)
			if opts.Tokenizer == nil {
				opts.Tokenizer = mustTokenizer(t, O200k)
			}
			r, err := Build(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, r, opts.Tokenizer)
			tt.check(t, r)
			if _, err := os.Stat(ws.SessionPath("solo")); err != nil {
				t.Errorf("session file not created: %v", err)
			}
		})
	}
}

func hasNote(r *Result, prefix string) bool {
	for _, n := range r.Manifest.Notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

func TestBuildRecall(t *testing.T) {
	ws := copyExample(t)
	base := Options{Teammate: "beacon", Task: exampleTask, Now: fixedClock(exampleNow), Location: time.UTC, Tokenizer: mustTokenizer(t, O200k)}
	t.Run("bm25 only when there is no model", func(t *testing.T) {
		opts := base
		opts.Recaller = &fakeRecaller{ws: ws, now: exampleNow}
		r, err := Build(context.Background(), ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Manifest.Recall.Mode != RecallBM25 || r.Manifest.Recall.HasVectors || !hasNote(r, "no embedding model") {
			t.Errorf("mode %q, notes %q", r.Manifest.Recall.Mode, r.Manifest.Notes)
		}
		if !strings.Contains(sectionText(t, r, SectionRecall), "_Source: .teammates/beacon/memory/") {
			t.Error("no recalled memory with its source")
		}
	})
	t.Run("query is the task for the teammate", func(t *testing.T) {
		opts := base
		rec := &fakeRecaller{ws: ws, now: exampleNow}
		opts.Recaller, opts.RecallK = rec, 7
		if _, err := Build(context.Background(), ws, opts); err != nil {
			t.Fatal(err)
		}
		if len(rec.queries) != 1 || rec.queries[0].Text != exampleTask || rec.queries[0].K != 7 || len(rec.queries[0].Teammates) != 1 || rec.queries[0].Teammates[0] != "beacon" {
			t.Errorf("queries %+v", rec.queries)
		}
	})
	t.Run("memories already in the stack are dropped", func(t *testing.T) {
		opts := base
		opts.Recaller = &fakeRecaller{ws: ws, now: exampleNow, vectors: true, extra: []recall.Hit{
			{Teammate: "beacon", Path: "beacon/memory/2026-11-20.md", Kind: "daily", StartLine: 3, EndLine: 7, Score: 9, Text: "dup of today"},
			{Teammate: "beacon", Path: "beacon/WISDOM.md", Kind: "wisdom", StartLine: 1, EndLine: 4, Score: 8, Text: "dup of wisdom"},
			{Teammate: "beacon", Path: "beacon/memory/user_priya.md", Kind: "typed", Type: "user", StartLine: 1, EndLine: 6, Score: 0.01, Text: "second chunk of a file"},
		}}
		r, err := Build(context.Background(), ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		why := map[string]string{}
		for _, it := range r.Manifest.Recall.Items {
			if it.Decision == Dropped {
				why[it.Path+":"+it.Why] = it.Why
			}
		}
		for _, want := range []string{
			"beacon/memory/2026-11-20.md:already in the stack: the recent daily logs",
			"beacon/WISDOM.md:already in the stack: the wisdom section",
		} {
			if _, ok := why[want]; !ok {
				t.Errorf("no drop %q in %v", want, why)
			}
		}
		if strings.Contains(r.Text, "dup of") {
			t.Error("a duplicate reached the text")
		}
	})
	t.Run("recall failure is a note", func(t *testing.T) {
		opts := base
		opts.Recaller = &fakeRecaller{ws: ws, err: errors.New("index is corrupt")}
		r, err := Build(context.Background(), ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Manifest.Recall.Error != "index is corrupt" || !hasNote(r, "recall failed") {
			t.Errorf("recall %+v notes %q", r.Manifest.Recall, r.Manifest.Notes)
		}
	})
	t.Run("cancelled context is an error", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		opts := base
		opts.Recaller = &fakeRecaller{ws: ws, err: context.Canceled}
		if _, err := Build(ctx, ws, opts); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestBuildErrors(t *testing.T) {
	ws := copyExample(t)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"unknown teammate lists the known ones", Options{Teammate: "nobody", Now: fixedClock(exampleNow)}, `unknown teammate "nobody" (known: atlas, beacon, quill)`},
		{"malformed teammate name", Options{Teammate: "../beacon", Now: fixedClock(exampleNow)}, `build context: teammate name "../beacon" contains '..'`},
		{"no clock", Options{Teammate: "beacon"}, "no clock"},
		{"budget too small", Options{Teammate: "beacon", Now: fixedClock(exampleNow), Budget: 100}, "below the minimum of 256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(context.Background(), ws, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	t.Run("unknown teammate is a typed error", func(t *testing.T) {
		_, err := Build(context.Background(), ws, Options{Teammate: "nobody", Now: fixedClock(exampleNow)})
		var ut *layout.UnknownTeammateError
		if !errors.As(err, &ut) || len(ut.Known) != 3 {
			t.Errorf("err = %#v", err)
		}
	})
}

// Builds in parallel share the tokenizer and its cache, and give the same
// bytes as one build alone.
func TestBuildConcurrent(t *testing.T) {
	ws := copyExample(t)
	opts := Options{Teammate: "beacon", Task: exampleTask, Now: fixedClock(exampleNow), Location: time.UTC,
		Tokenizer: mustTokenizer(t, Cl100k), Recaller: &fakeRecaller{ws: ws, now: exampleNow}}
	want, err := Build(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			o := opts
			o.Recaller = &fakeRecaller{ws: ws, now: exampleNow}
			r, err := Build(context.Background(), ws, o)
			if err == nil && r.Text != want.Text {
				err = errors.New("a parallel build differs")
			}
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// exampleIndex copies the example workspace and opens its real recall
// index (BM25 only), closed when the test ends.
func exampleIndex(t *testing.T) (*layout.Workspace, *recall.Index) {
	t.Helper()
	ws := copyExample(t)
	ix, err := recall.Open(ws, recall.Options{Now: fixedClock(exampleNow)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ws, ix
}

// The real recall index is a Recaller.
var _ Recaller = (*recall.Index)(nil)

// TestBuildWithRecallIndex builds on the example workspace with the real
// recall index in BM25 mode: the stack keeps its invariants and nothing
// recalled repeats what is already injected.
func TestBuildWithRecallIndex(t *testing.T) {
	ws, ix := exampleIndex(t)
	tok := mustTokenizer(t, O200k)
	for _, budget := range []int{DefaultBudget, 2500, MinBudget} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: exampleTask, Budget: budget,
				Tokenizer: tok, Now: fixedClock(exampleNow), Location: time.UTC, Recaller: ix})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, r, tok)
			m := r.Manifest
			if m.Recall.Mode != RecallBM25 || len(m.Recall.Items) == 0 {
				t.Fatalf("recall mode %q with %d items", m.Recall.Mode, len(m.Recall.Items))
			}
			fixed := map[string]bool{"beacon/SOUL.md": true, "beacon/GOALS.md": true, "beacon/WISDOM.md": true}
			included := 0
			for _, it := range m.Recall.Items {
				if it.Decision != Included {
					continue
				}
				included++
				if fixed[it.Path] {
					t.Errorf("recalled %s, which is a section of its own", it.Path)
				}
				for _, d := range m.Dailies {
					if d.Decision == Included && d.Path == it.Path && d.StartLine <= it.EndLine && it.StartLine <= d.EndLine {
						t.Errorf("recalled %s:%d-%d, which is in the recent daily logs", it.Path, it.StartLine, it.EndLine)
					}
				}
			}
			if budget == DefaultBudget && included == 0 {
				t.Error("nothing recalled with the whole budget free")
			}
		})
	}
}

// TestRecallFloor builds on the example workspace with the real recall
// index and several floors: no injected memory scores below the floor
// share of the best hit, a floor of 1 leaves only the best, and the
// default floor leaves out what scores under a tenth of the best.
func TestRecallFloor(t *testing.T) {
	ws, ix := exampleIndex(t)
	tok := mustTokenizer(t, O200k)
	tests := []struct {
		name        string
		floor       float64
		share       float64 // the floor in effect
		wantBelow   bool    // some hit must be left out under the floor
		maxIncluded int     // 0: any
	}{
		{"default", 0, DefaultRecallFloor, true, 0},
		{"none", -1, 0, false, 0},
		{"half", 0.5, 0.5, true, 0},
		{"only the best", 1, 1, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: exampleTask, RecallK: 40, RecallFloor: tt.floor,
				Tokenizer: tok, Now: fixedClock(exampleNow), Location: time.UTC, Recaller: ix})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, r, tok)
			m := r.Manifest.Recall
			best := 0.0
			for _, it := range m.Items {
				best = max(best, it.Score)
			}
			if want := tt.share * best; math.Abs(m.Floor-want) > 1e-12 {
				t.Errorf("floor %v, want %v × best %v", m.Floor, tt.share, best)
			}
			included, below := 0, 0
			for _, it := range m.Items {
				if it.Score < tt.share*best && strings.HasPrefix(it.Why, "below the relevance floor") {
					below++
				}
				if it.Decision != Included {
					continue
				}
				included++
				if it.Score < tt.share*best {
					t.Errorf("injected %s:%d-%d at score %.4f, below the floor %.2f × best %.4f", it.Path, it.StartLine, it.EndLine, it.Score, tt.share, best)
				}
			}
			if included == 0 {
				t.Error("nothing injected")
			}
			if tt.maxIncluded > 0 && included > tt.maxIncluded {
				t.Errorf("%d memories injected, want at most %d", included, tt.maxIncluded)
			}
			if tt.wantBelow != (below > 0) {
				t.Errorf("%d of %d hits left out under the floor, want some: %v", below, len(m.Items), tt.wantBelow)
			}
		})
	}
}

// TestBuildOmissions: whatever the stack loses or reads leniently is said
// once, as "path:line: why", on Options.Warn and in the manifest's notes,
// and everything else still goes in.
func TestBuildOmissions(t *testing.T) {
	soul := "# Solo\n\n## Identity\n\nTests things.\n"
	good := "# 2026-11-18\n\n## Good\n\nfine\n"
	tests := []struct {
		name     string
		files    map[string]string
		dirs     []string // folders where a file is expected: reading them fails
		fifos    []string // named pipes where a file is expected
		outside  []string // links to a file outside the workspace
		recaller Recaller
		wantText []string
		notText  []string
		wantWarn []string // each warning holds one of these, in order
	}{
		{
			name: "frontmatter that is not YAML is read leniently",
			files: map[string]string{
				"solo/SOUL.md":              "---\nname: Solo\nrole: Frontend: UI lead\n---\n# Solo\n\n## Principles\n\nShip small.\n",
				"solo/memory/2026-11-19.md": "---\nday: 2026-11-19\nmood: tired: very\n---\n# 2026-11-19\n\n## Demo\n\nRehearsed.\n",
			},
			wantText: []string{"### Principles\n\nShip small.", "- **solo** (you) — Frontend: UI lead", "### Demo\n\nRehearsed."},
			wantWarn: []string{
				"solo/SOUL.md:3: bad frontmatter: mapping values are not allowed in this context; its frontmatter was read as key: value lines",
				"solo/memory/2026-11-19.md:3: bad frontmatter: mapping values are not allowed in this context; its frontmatter was read as key: value lines",
			},
		},
		{
			name: "another teammate's role is read leniently",
			files: map[string]string{
				"solo/SOUL.md":  soul,
				"quill/SOUL.md": "---\nrole: Frontend: UI lead\n---\n# Quill\n",
			},
			wantText: []string{"- **quill** — Frontend: UI lead"},
			wantWarn: []string{"quill/SOUL.md:2: bad frontmatter: mapping values are not allowed in this context; its frontmatter was read as key: value lines for the roster"},
		},
		{
			name: "files that do not parse are left out",
			files: map[string]string{"solo/SOUL.md": soul,
				"solo/WISDOM.md":            "# Wisdom\n\n## Rule\n\n\x00\n",
				"solo/memory/2026-11-19.md": "# 2026-11-19\n\n## Bad\n\n\x00\n",
				"solo/memory/2026-11-18.md": good},
			wantText: []string{"_`.teammates/solo/WISDOM.md` was left out: it does not parse (see `tmem doctor`)._", "### Good\n\nfine"},
			notText:  []string{"## Bad"},
			wantWarn: []string{
				"solo/WISDOM.md:5: binary file: contains a NUL byte; left out of the stack",
				"solo/memory/2026-11-19.md:5: binary file: contains a NUL byte; left out of the stack",
			},
		},
		{
			name:     "today's log with invalid UTF-8 is not reported as missing",
			files:    map[string]string{"solo/SOUL.md": soul, "solo/memory/2026-11-20.md": "# 2026-11-20\n\n## Ok\n\nbad \xff byte\n", "solo/memory/2026-11-18.md": good},
			wantText: []string{"_Today's log `.teammates/solo/memory/2026-11-20.md` was left out: it does not parse (see `tmem doctor`)._", "### Good\n\nfine"},
			notText:  []string{"No log for today yet"},
			wantWarn: []string{"solo/memory/2026-11-20.md:5: invalid UTF-8 (byte 0xff at offset 25); left out of the stack"},
		},
		{
			name:     "today's log over the size limit is not reported as missing",
			files:    map[string]string{"solo/SOUL.md": soul, "solo/memory/2026-11-20.md": "# 2026-11-20\n\n## Huge\n\n" + strings.Repeat("x", layout.MaxFileSize)},
			wantText: []string{"_Today's log `.teammates/solo/memory/2026-11-20.md` was left out: it is over the size limit (see `tmem doctor`)._"},
			notText:  []string{"No log for today yet"},
			wantWarn: []string{"solo/memory/2026-11-20.md: file is 4.0 MiB, over the 4.0 MiB limit for memory files; left out of the stack"},
		},
		{
			name:     "no log for today, only earlier ones",
			files:    map[string]string{"solo/SOUL.md": soul, "solo/memory/2026-11-18.md": good},
			wantText: []string{"_No log for today yet: it goes in `.teammates/solo/memory/2026-11-20.md`._", "### Good\n\nfine"},
		},
		{
			name:     "a file that cannot be read",
			files:    map[string]string{"solo/SOUL.md": soul},
			dirs:     []string{"solo/GOALS.md"},
			wantText: []string{"_`.teammates/solo/GOALS.md` was left out: it is not a regular file (see `tmem doctor`)._", "### Identity\n\nTests things."},
			wantWarn: []string{"solo/GOALS.md: not a regular file (a folder): tmem reads only regular files; left out of the stack"},
		},
		{
			name:     "today's log that is a folder is not reported as missing",
			files:    map[string]string{"solo/SOUL.md": soul, "solo/memory/2026-11-18.md": good},
			dirs:     []string{"solo/memory/2026-11-20.md"},
			wantText: []string{"_Today's log `.teammates/solo/memory/2026-11-20.md` was left out: it is not a regular file (see `tmem doctor`)._", "### Good\n\nfine"},
			notText:  []string{"No log for today yet"},
			wantWarn: []string{"solo/memory/2026-11-20.md: not a regular file (a folder): tmem reads only regular files; left out of the stack"},
		},
		{
			name:     "today's log that is a named pipe is not reported as missing",
			files:    map[string]string{"solo/SOUL.md": soul, "solo/memory/2026-11-18.md": good},
			fifos:    []string{"solo/memory/2026-11-20.md"},
			wantText: []string{"_Today's log `.teammates/solo/memory/2026-11-20.md` was left out: it is not a regular file (see `tmem doctor`)._", "### Good\n\nfine"},
			notText:  []string{"No log for today yet"},
			wantWarn: []string{"solo/memory/2026-11-20.md: not a regular file (a named pipe (FIFO)): tmem reads only regular files; left out of the stack"},
		},
		{
			name:     "today's log that leads outside is not reported as missing",
			files:    map[string]string{"solo/SOUL.md": soul, "solo/memory/2026-11-18.md": good},
			outside:  []string{"solo/memory/2026-11-20.md"},
			wantText: []string{"_Today's log `.teammates/solo/memory/2026-11-20.md` was left out: it leads outside the workspace (see `tmem doctor`)._", "### Good\n\nfine"},
			notText:  []string{"No log for today yet", "secret outside"},
			wantWarn: []string{"solo/memory/2026-11-20.md: leads outside the workspace through a symlink, which tmem never follows; left out of the stack"},
		},
		{
			name:     "a template override that cannot be read",
			files:    map[string]string{"solo/SOUL.md": soul},
			dirs:     []string{"templates/output-protocol.md"},
			wantText: []string{"# Output protocol\n\nAnswer with the result of the task first."},
			wantWarn: []string{"templates/output-protocol.md: not a regular file (a folder): tmem reads only regular files; the built-in template is used instead"},
		},
		{
			name:     "a template override that is not UTF-8",
			files:    map[string]string{"solo/SOUL.md": soul, "templates/memory-instructions.md": "# Ours\n\nbad \xff byte\n"},
			wantText: []string{"### Typed memories"},
			notText:  []string{"\xff", "# Ours"},
			wantWarn: []string{"templates/memory-instructions.md:3: invalid UTF-8 (byte 0xff at offset 12); the built-in template is used instead"},
		},
		{
			name:     "a template override with a NUL byte",
			files:    map[string]string{"solo/SOUL.md": soul, "templates/output-protocol.md": "ours\x00"},
			wantText: []string{"# Output protocol\n\nAnswer with the result of the task first."},
			notText:  []string{"\x00"},
			wantWarn: []string{"templates/output-protocol.md:1: binary file: contains a NUL byte; the built-in template is used instead"},
		},
		{
			name:     "a session file that cannot be created",
			files:    map[string]string{"solo/SOUL.md": soul, ".tmp": "a file where the scratch folder should be"},
			wantText: []string{"_The file does not exist and tmem could not create it (the workspace may be read-only)"},
			wantWarn: []string{".tmp/sessions/solo.md: cannot create the session file: "},
		},
		{
			name:     "recall that fails",
			files:    map[string]string{"solo/SOUL.md": soul},
			recaller: &fakeRecaller{err: errors.New("index unreadable")},
			wantText: []string{"_No recalled memories for this task._"},
			wantWarn: []string{"recall failed, the stack has no recalled memories: index unreadable"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := writeFiles(t, tt.files)
			for _, d := range tt.dirs {
				if err := os.MkdirAll(ws.Abs(d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			makeHostile(t, ws, tt.fifos, tt.outside)
			var warned []string
			opts := Options{Teammate: "solo", Now: fixedClock(exampleNow), Location: time.UTC, Tokenizer: mustTokenizer(t, Chars4),
				Recaller: tt.recaller, Warn: func(m string) { warned = append(warned, m) }}
			r, err := Build(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, r, opts.Tokenizer)
			for _, w := range tt.wantText {
				if !strings.Contains(r.Text, w) {
					t.Errorf("text lacks %q", w)
				}
			}
			for _, w := range tt.notText {
				if strings.Contains(r.Text, w) {
					t.Errorf("text holds %q", w)
				}
			}
			if len(warned) != len(tt.wantWarn) {
				t.Fatalf("warnings %q, want %d", warned, len(tt.wantWarn))
			}
			for i, w := range tt.wantWarn {
				if !strings.Contains(warned[i], w) {
					t.Errorf("warning %q, want it to hold %q", warned[i], w)
				}
				if !hasNote(r, warned[i]) {
					t.Errorf("warning %q is not a manifest note: %q", warned[i], r.Manifest.Notes)
				}
			}
		})
	}
}

// TestHugeTaskQuery builds with a task longer than recall searches: the
// manifest names the query as searched (the task's first
// recall.MaxQueryBytes, cut at white space), not the whole task again,
// and the stack still holds the task whole.
func TestHugeTaskQuery(t *testing.T) {
	ws, ix := exampleIndex(t)
	task := exampleTask + "\n\n" + strings.Repeat("pasted log line with a container number MSCU1234565\n", 3*recall.MaxQueryBytes/52)
	r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: task, Budget: DefaultBudget,
		Tokenizer: mustTokenizer(t, O200k), Now: fixedClock(exampleNow), Location: time.UTC, Recaller: ix})
	if err != nil {
		t.Fatal(err)
	}
	q := r.Manifest.Recall.Query
	if len(q) > recall.MaxQueryBytes || len(q) < recall.MaxQueryBytes/2 || !strings.HasPrefix(task, q) {
		t.Errorf("manifest query is %d bytes of a %d-byte task (prefix %v), want its first %d at most",
			len(q), len(task), strings.HasPrefix(task, q), recall.MaxQueryBytes)
	}
	if !strings.Contains(r.Text, strings.TrimSpace(task)) {
		t.Error("the stack does not hold the whole task")
	}
}

// TestDroppedDailyRecalled: an entry of the recent window that the daily
// share has no room for is not lost to the stack: recall finds it, while
// the entries the stack shows are not recalled again.
func TestDroppedDailyRecalled(t *testing.T) {
	ws, ix := exampleIndex(t)
	const old = "beacon/memory/2026-11-16.md"
	writeWS(t, ws, old, "# 2026-11-16\n\n## Vault\n\nThe vault code is needlezeta42.\n")
	var busy strings.Builder
	busy.WriteString("# 2026-11-19\n")
	for e := range 40 {
		fmt.Fprintf(&busy, "\n## Batch %d\n\n", e)
		for i := range 60 {
			fmt.Fprintf(&busy, "w%dx%d ", e, i)
		}
		busy.WriteString("\n")
	}
	writeWS(t, ws, "beacon/memory/2026-11-19.md", busy.String())
	r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: "what is the vault code", Budget: 2500,
		Tokenizer: mustTokenizer(t, O200k), Now: fixedClock(exampleNow), Location: time.UTC, Recaller: ix})
	if err != nil {
		t.Fatal(err)
	}
	dropped := false
	for _, d := range r.Manifest.Dailies {
		dropped = dropped || d.Path == old && d.Decision == Dropped
	}
	if !dropped {
		t.Fatalf("the daily share kept %s; the test needs it dropped: %+v", old, r.Manifest.Dailies)
	}
	if !strings.Contains(sectionText(t, r, SectionRecall), "needlezeta42") {
		t.Errorf("the dropped entry is not recalled:\n%s", sectionText(t, r, SectionRecall))
	}
	for _, it := range r.Manifest.Recall.Items {
		for _, d := range r.Manifest.Dailies {
			if it.Decision == Included && d.Decision == Included && d.Path == it.Path && d.StartLine <= it.EndLine && it.StartLine <= d.EndLine {
				t.Errorf("recalled %s:%d-%d, which the daily section shows", it.Path, it.StartLine, it.EndLine)
			}
		}
	}
}

// writeWS writes the file at rel in ws.
func writeWS(t *testing.T, ws *layout.Workspace, rel, body string) {
	t.Helper()
	if err := os.WriteFile(ws.Abs(rel), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBuildDoesNotWaitLongForIndex builds while another process holds
// beacon's index (a stopped sync, say): the build waits IndexWait, not a
// search's minute, then builds the stack without recalled memories and
// says why. A build that names no wait asks for DefaultIndexWait.
func TestBuildDoesNotWaitLongForIndex(t *testing.T) {
	ws, ix := exampleIndex(t)
	holder, err := layout.LockAt(ws, ".tmp/locks/index-beacon.lock")
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock()
	var warned []string
	r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: exampleTask, Now: fixedClock(exampleNow),
		Location: time.UTC, Tokenizer: mustTokenizer(t, O200k), Recaller: ix, IndexWait: 200 * time.Millisecond,
		Warn: func(msg string) { warned = append(warned, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Manifest.Recall.Items) != 0 || !strings.Contains(r.Manifest.Recall.Error, "gave up after 200ms") {
		t.Errorf("recall items %d, error %q: want none, and the 200ms wait given up", len(r.Manifest.Recall.Items), r.Manifest.Recall.Error)
	}
	if !slices.ContainsFunc(warned, func(w string) bool { return strings.Contains(w, "recall failed") }) {
		t.Errorf("warnings %q: none says recall failed", warned)
	}
	rec := &fakeRecaller{ws: ws, now: exampleNow}
	if _, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: exampleTask, Now: fixedClock(exampleNow),
		Location: time.UTC, Tokenizer: mustTokenizer(t, O200k), Recaller: rec}); err != nil {
		t.Fatal(err)
	}
	if len(rec.queries) != 1 || rec.queries[0].LockWait != DefaultIndexWait {
		t.Errorf("queries %+v: want one, waiting %s", rec.queries, DefaultIndexWait)
	}
}
