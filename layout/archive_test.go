package layout

import (
	"strings"
	"testing"
	"time"
)

func TestArchiveRestoresEverySourceExactly(t *testing.T) {
	sources := []struct {
		name, src string
	}{
		{"plain daily", "# 2026-03-09\n\n## Fixed sync\n- Root cause: mtime granularity\n"},
		{"byte-order mark", bom + "# 2026-03-10\n\n## A\ntext\n"},
		{"CRLF", "# 2026-03-11\r\n\r\n## A\r\ntext\r\n"},
		{"mixed line endings stay as they are", "# 2026-03-12\r\n\n## A\ntext\r\n"},
		{"no final newline", "# 2026-03-13\n\n## A\ntext"},
		{"empty", ""},
		{"unclosed fence", "# 2026-03-14\n\n## Code\n```go\nfunc f() {}\n"},
		{"unclosed HTML comment", "# 2026-03-14\n\n## Note\n<!-- draft\n"},
		{"unclosed pre block", "# 2026-03-14\n\n## Log\n<pre>\nout\n"},
		{"lines that look like markers", "# 2026-03-15\n\n<!-- tmem:end 2026-03-15.md -->\n<!-- tmem:archive x.md sha256:" + strings.Repeat("0", 64) + " lines:1 archived:2026-01-01 -->\n## After\n"},
		{"frontmatter and emoji", "---\nmood: 🙂\n---\n# 2026-03-16\n\n## 部署\n- 完成\n"},
	}
	var secs []ArchiveSection
	for i, s := range sources {
		secs = append(secs, NewArchiveSection(dayName(i), []byte(s.src), mustDay(t, "2026-03-20")))
	}
	file := AppendArchive(nil, "2026-03", secs[:3]...)
	file = AppendArchive(file, "2026-03", secs[3:]...) // appended in a second run
	got, err := ParseArchive("a.md", file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sources) {
		t.Fatalf("parsed %d sections, want %d:\n%s", len(got), len(sources), file)
	}
	lines := strings.Split(string(file), "\n")
	for i, s := range sources {
		t.Run(s.name, func(t *testing.T) {
			sec := got[i]
			if sec.Source != dayName(i) || sec.Edited {
				t.Fatalf("section %d: source %q, edited %v", i, sec.Source, sec.Edited)
			}
			if string(sec.Original()) != s.src || !sec.Verify() {
				t.Errorf("restored %q, want %q", sec.Original(), s.src)
			}
			for n, l := range strings.Split(strings.TrimPrefix(strings.ReplaceAll(s.src, "\r\n", "\n"), bom), "\n") {
				if l == "" {
					continue
				}
				at := sec.Header + n // 0-based index of the n-th text line
				if at >= len(lines) || strings.TrimSuffix(lines[at], "\r") != strings.TrimSuffix(l, "\r") {
					t.Errorf("source line %d %q is not at archive line %d", n+1, l, at+1)
				}
			}
		})
	}
}

func TestArchiveClosesAnOpenBlock(t *testing.T) {
	for _, tt := range []struct{ name, text, closer string }{
		{"fence", "## Code\n~~~~\nx\n", "~~~~"},
		{"pre block", "## Code\n<pre>\nx\n", "</pre>"},
	} {
		t.Run(tt.name, func(t *testing.T) { archiveCloses(t, tt.text, tt.closer) })
	}
}

func archiveCloses(t *testing.T, text, closer string) {
	t.Helper()
	sec := NewArchiveSection("2026-03-14.md", []byte(text), mustDay(t, "2026-03-20"))
	file := string(AppendArchive(nil, "2026-03", sec, NewArchiveSection("2026-03-15.md", []byte("## Next\n"), mustDay(t, "2026-03-20"))))
	if !strings.Contains(file, "x\n"+closer+"\n<!-- tmem:end 2026-03-14.md -->") {
		t.Errorf("the open block is not closed before the end marker:\n%s", file)
	}
	d, err := Parse("a.md", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range d.Entries {
		found = found || e.Heading == "Next"
	}
	if !found {
		t.Errorf("the section after the open block is swallowed by it: %+v", d.Entries)
	}
}

func TestArchiveHandEditedSection(t *testing.T) {
	a := NewArchiveSection("2026-03-09.md", []byte("# 2026-03-09\n\n## A\nsecret line\nkept line\n"), mustDay(t, "2026-03-20"))
	b := NewArchiveSection("2026-03-10.md", []byte("# 2026-03-10\n\n## B\ntext\n"), mustDay(t, "2026-03-20"))
	file := strings.Replace(string(AppendArchive(nil, "2026-03", a, b)), "secret line\n", "", 1)
	got, err := ParseArchive("a.md", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("parsed %d sections, want 2", len(got))
	}
	if !got[0].Edited || got[0].Verify() || !strings.Contains(got[0].Text, "kept line") {
		t.Errorf("edited section: %+v", got[0])
	}
	if got[1].Edited || !got[1].Verify() {
		t.Errorf("the section after an edited one must still read cleanly: %+v", got[1])
	}
}

// TestArchiveLineCountOutOfRange reads sections whose header gives a line
// count no file has (past int64, or near it, so that adding it to a line
// number wraps): each is framed by its end marker as hand-edited, and the
// section after it reads cleanly.
func TestArchiveLineCountOutOfRange(t *testing.T) {
	next := NewArchiveSection("2026-01-03.md", []byte("# 2026-01-03\n\n## B\ntext\n"), mustDay(t, "2026-01-20"))
	for _, n := range []string{"9223372036854775807", "9223372036854775806", "99999999999999999999"} {
		file := "<!-- tmem:archive 2026-01-02.md sha256:" + strings.Repeat("0", 64) + " lines:" + n + " archived:2026-01-20 -->\nhello\n<!-- tmem:end 2026-01-02.md -->\n"
		got, err := ParseArchive("a.md", AppendArchive([]byte(file), "2026-01", next))
		if err != nil {
			t.Fatalf("lines:%s: %v", n, err)
		}
		if len(got) != 2 || !got[0].Edited || got[0].Text != "hello\n" {
			t.Fatalf("lines:%s: sections %+v, want an edited one holding hello, then 2026-01-03.md", n, got)
		}
		if got[1].Edited || !got[1].Verify() {
			t.Errorf("lines:%s: the section after it must read cleanly: %+v", n, got[1])
		}
	}
}

func TestArchiveRefusesBinary(t *testing.T) {
	_, err := ParseArchive("a.md", []byte("# Archive\n\x00"))
	if err == nil || !strings.Contains(err.Error(), "a.md:2: binary file") {
		t.Errorf("err = %v", err)
	}
}

func dayName(i int) string {
	return "2026-03-" + string(rune('1'+i/10)) + string(rune('0'+i%10)) + ".md"
}

func mustDay(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(DateLayout, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A part (what a merge keeps of a later copy of a file) reads back as a
// part with its text, restores nothing on its own, and is not taken for a
// hand edit.
func TestArchivePart(t *testing.T) {
	full := NewArchiveSection("2026-03-09.md", []byte("# 2026-03-09\n\n## A\na\n\n## B\nb\n"), mustDay(t, "2026-03-20"))
	part := full.PartOf("## B\nb")
	file := AppendArchive(nil, "2026-03", NewArchiveSection("2026-03-08.md", []byte("# 2026-03-08\n"), mustDay(t, "2026-03-20")), part)
	got, err := ParseArchive("a.md", file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("parsed %d sections, want 2", len(got))
	}
	p := got[1]
	if !p.Part || p.Edited || p.Verify() || p.Text != "## B\nb\n" || p.SHA != full.SHA {
		t.Errorf("part read back as %+v", p)
	}
	ws := newWorkspace(t, "beacon")
	rel := ArchivePath("beacon", "2026-03")
	if err := ws.WriteFile(rel, file); err != nil {
		t.Fatal(err)
	}
	for _, f := range ws.checkArchive(File{Path: rel}) {
		t.Errorf("doctor: %s:%d: %s", f.Path, f.Line, f.Message)
	}
}
