package layout

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestResealArchives: sections a person changed (a line taken out, a word
// changed, an open fence whose closer the writer added) are recorded as
// they now are, so that doctor finds them whole again and they restore as
// edited; untouched sections, and one whose end marker is gone, are left
// byte for byte.
func TestResealArchives(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	day := mustDay(t, "2026-03-20")
	secs := []ArchiveSection{
		NewArchiveSection("2026-03-09.md", []byte("# 2026-03-09\n\n## A\nsecret line\nkept line\n"), day),
		NewArchiveSection("2026-03-10.md", []byte("# 2026-03-10\n\n## B\npassword hunter2\n"), day),
		NewArchiveSection("2026-03-11.md", []byte("# 2026-03-11\n\n## C\n~~~\ncode\nsecret\n"), day),
		NewArchiveSection("2026-03-12.md", []byte("# 2026-03-12\n\n## D\nuntouched\n"), day),
	}
	file := string(AppendArchive(nil, "2026-03", secs...))
	file = strings.Replace(file, "secret line\n", "", 1)
	file = strings.Replace(file, "hunter2", "[removed]", 1)
	file = strings.Replace(file, "code\nsecret\n", "code\n", 1)
	const rel = "beacon/memory/archive/2026-03.md"
	if err := ws.WriteFile(rel, []byte(file)); err != nil {
		t.Fatal(err)
	}
	if n := countEdited(t, ws); n != 3 {
		t.Fatalf("doctor finds %d sections changed by hand before, want 3", n)
	}
	did, err := ws.ResealArchives(context.Background(), "beacon")
	if err != nil || len(did) != 3 {
		t.Fatalf("ResealArchives = %q, %v; want three sections recorded", did, err)
	}
	if n := countEdited(t, ws); n != 0 {
		t.Errorf("doctor finds %d sections changed by hand after", n)
	}
	b, err := ws.ReadFile(rel, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseArchive(rel, b)
	if err != nil || len(got) != 4 {
		t.Fatalf("parsed %d sections, %v", len(got), err)
	}
	want := []string{"# 2026-03-09\n\n## A\nkept line\n", "# 2026-03-10\n\n## B\npassword [removed]\n", "# 2026-03-11\n\n## C\n~~~\ncode\n~~~\n", "# 2026-03-12\n\n## D\nuntouched\n"}
	for i, s := range got {
		if string(s.Original()) != want[i] || !s.Verify() {
			t.Errorf("section %d restores %q (verifies %v), want %q", i, s.Original(), s.Verify(), want[i])
		}
	}
	if !strings.Contains(string(b), secs[3].Render()) {
		t.Error("the untouched section was rewritten")
	}
	st, err := os.Stat(ws.Abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	if did, err := ws.ResealArchives(context.Background(), "beacon"); err != nil || len(did) != 0 {
		t.Fatalf("a second ResealArchives = %q, %v; want nothing to do", did, err)
	}
	if st2, err := os.Stat(ws.Abs(rel)); err != nil || !os.SameFile(st, st2) {
		t.Error("an archive with nothing to record was written again")
	}
}

// TestResealLeavesAnUnendedSection: a section whose end marker is gone is
// named and left as it is.
func TestResealLeavesAnUnendedSection(t *testing.T) {
	sec := NewArchiveSection("2026-03-09.md", []byte("# 2026-03-09\n\n## A\nsecret line\n"), mustDay(t, "2026-03-20"))
	file := strings.Replace(sec.Render(), "<!-- tmem:end 2026-03-09.md -->\n", "", 1)
	out, notes, err := reseal("a.md", []byte(file))
	if err != nil || string(out) != file || len(notes) != 1 || !strings.Contains(notes[0], "no end marker") {
		t.Errorf("reseal = %q, %q, %v; want the file unchanged and a note", out, notes, err)
	}
}

// countEdited counts doctor's findings of archive sections changed by hand.
func countEdited(t *testing.T, ws *Workspace) int {
	t.Helper()
	findings, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range findings {
		if strings.Contains(f.Message, "changed by hand") {
			n++
		}
	}
	return n
}
