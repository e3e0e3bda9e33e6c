package layout

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/bytesize"
	"github.com/tmemhq/tmem/internal/lazyregexp"
)

// The archive keeps, word for word, every file compaction removes from a
// teammate's memory folder, so that nothing written is ever lost and
// recall can still find it.
//
// memory/archive/YYYY-MM.md holds the daily logs of that month and the
// weekly summaries folded into a monthly (by the month of their
// Thursday), one section per source, appended in the order they were
// archived:
//
//	# Archive 2026-03
//
//	<!-- tmem:archive 2026-03-09.md sha256:<64 hex> lines:12 archived:2026-03-16 -->
//	# 2026-03-09
//	…the source, line for line…
//	<!-- tmem:end 2026-03-09.md -->
//
// The header names the source (relative to the memory folder), the SHA-256
// of its bytes, how many lines follow, and the day it was archived. The
// text is the source byte for byte except that a UTF-8 byte-order mark is
// dropped, CRLF line endings become LF and a missing final newline is
// added; the flags bom, crlf and noeol on the header record each, so the
// original bytes, and their hash, are restored exactly (Original). When a
// source ends inside an unclosed code fence, a closing fence line goes
// between the text and the end marker, so the rest of the file still
// renders; it is not part of the source. When two machines archived one
// file at different points in its life, the git merge keeps each entry
// once: a later copy keeps only the entries an earlier one lacks, flagged
// part (the hash is still the source's). Sections are framed by their line
// count, so a source that contains marker-like lines cannot break the
// file; a section edited by hand falls back to its end marker.
//
// Typed memories absorbed into WISDOM.md are kept whole, frontmatter and
// comments included, as memory/archive/typed/<file name>; a second,
// different memory under a taken name gets the first 8 hex digits of its
// hash before ".md".

// ArchiveDir is the archive folder's path below a teammate's memory folder.
const ArchiveDir = "archive"

// MaxArchiveSize bounds an archive file. Each section is still held to
// MaxFileSize; the file gathers a month of them.
const MaxArchiveSize = 256 << 20

// ArchiveSection is one source kept in an archive file.
type ArchiveSection struct {
	Source   string // relative to the memory folder: "2026-03-09.md", "weekly/2026-W11.md"
	SHA      string // hex SHA-256 of the source's bytes
	Archived string // YYYY-MM-DD
	BOM      bool   // the source began with a byte-order mark
	CRLF     bool   // the source's lines ended in CRLF
	NoEOL    bool   // the source did not end in a newline
	// Part is set when the section holds only the entries of the source
	// that an earlier copy of the same file in the archive lacks (two
	// machines archived it at different points in its life, and a merge
	// keeps each entry once). The source cannot be restored from it alone.
	Part bool
	Text string // the stored text: LF line endings, no BOM, ends in "\n" unless empty
	// Header is the 1-based line of the section's header; the text runs
	// from Header+1 for Lines lines.
	Header int
	Lines  int
	// Edited is set when the section no longer matches its header (a
	// person changed it); its text runs to its end marker.
	Edited bool
}

var (
	archiveHeader = lazyregexp.New(`^<!-- tmem:archive (\S+) sha256:([0-9a-f]{64}) lines:(\d+) archived:(\d{4}-\d{2}-\d{2})((?: (?:bom|crlf|noeol|part))*) -->$`)
	archiveEnd    = lazyregexp.New(`^<!-- tmem:end (\S+) -->$`)
)

// bom is the UTF-8 byte-order mark.
const bom = "\ufeff"

// NewArchiveSection stores original, the bytes of the memory file source
// (relative to the memory folder), as archived on day.
func NewArchiveSection(source string, original []byte, day time.Time) ArchiveSection {
	s := ArchiveSection{Source: source, SHA: sha256Hex(original), Archived: day.Format(DateLayout)}
	t := string(original)
	if strings.HasPrefix(t, bom) {
		s.BOM, t = true, t[len(bom):]
	}
	if n := strings.Count(t, "\n"); n > 0 && strings.Count(t, "\r\n") == n {
		s.CRLF, t = true, strings.ReplaceAll(t, "\r\n", "\n")
	}
	if t != "" && !strings.HasSuffix(t, "\n") {
		s.NoEOL, t = true, t+"\n"
	}
	s.Text, s.Lines = t, strings.Count(t, "\n")
	return s
}

// Original returns the source's bytes as they were before archiving.
func (s ArchiveSection) Original() []byte {
	t := s.Text
	if s.NoEOL {
		t = strings.TrimSuffix(t, "\n")
	}
	if s.CRLF {
		t = strings.ReplaceAll(t, "\n", "\r\n")
	}
	if s.BOM {
		t = bom + t
	}
	return []byte(t)
}

// Verify reports whether the section still restores its source exactly;
// a part never does.
func (s ArchiveSection) Verify() bool { return !s.Part && sha256Hex(s.Original()) == s.SHA }

// PartOf returns the part of the copy s that holds only text, the
// entries an earlier copy of the same file lacks (see Part).
func (s ArchiveSection) PartOf(text string) ArchiveSection {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return ArchiveSection{Source: s.Source, SHA: s.SHA, Archived: s.Archived, Part: true, Text: text, Lines: strings.Count(text, "\n")}
}

// Render writes the section: header, text, a line closing the code
// fence or HTML block the text leaves open (see closerOf), end marker.
func (s ArchiveSection) Render() string {
	var b strings.Builder
	b.WriteString(s.header())
	b.WriteString(s.Text)
	if closer := closerOf(s.Text); closer != "" {
		b.WriteString(closer + "\n")
	}
	b.WriteString("<!-- tmem:end " + s.Source + " -->\n")
	return b.String()
}

// header is the section's header line.
func (s ArchiveSection) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- tmem:archive %s sha256:%s lines:%d archived:%s", s.Source, s.SHA, s.Lines, s.Archived)
	for _, f := range []struct {
		on   bool
		name string
	}{{s.BOM, "bom"}, {s.CRLF, "crlf"}, {s.NoEOL, "noeol"}, {s.Part, "part"}} {
		if f.on {
			b.WriteString(" " + f.name)
		}
	}
	b.WriteString(" -->\n")
	return b.String()
}

// AppendArchive returns the archive file for month (YYYY-MM) with
// sections added at its end; old is its current content (nil for a new
// file), kept byte for byte.
func AppendArchive(old []byte, month string, sections ...ArchiveSection) []byte {
	var b bytes.Buffer
	if len(bytes.TrimSpace(old)) == 0 {
		b.WriteString("# Archive " + month + "\n\n")
		b.WriteString("<!-- Written by tmem compact: each section below is a memory file compaction took out of memory/, word for word. Append-only. -->\n")
	} else {
		b.Write(bytes.TrimRight(old, "\n"))
		b.WriteString("\n")
	}
	for _, s := range sections {
		b.WriteString("\n" + s.Render())
	}
	return b.Bytes()
}

// ParseArchive reads the sections of an archive file. Lines outside any
// section are ignored; a section whose frame no longer matches (a hand
// edit) is read up to its end marker and marked Edited.
func ParseArchive(path string, src []byte) ([]ArchiveSection, error) {
	if len(src) > MaxArchiveSize {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("archive is %s, over the %s limit", bytesize.Format(int64(len(src))), bytesize.Format(MaxArchiveSize))}
	}
	if err := checkContent(path, src); err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(src), "\n")
	var out []ArchiveSection
	for i := 0; i < len(lines); i++ {
		m := archiveHeader().FindStringSubmatch(strings.TrimRight(lines[i], "\r\n"))
		if m == nil {
			continue
		}
		s := ArchiveSection{Source: m[1], SHA: m[2], Archived: m[4], Header: i + 1}
		if n, err := strconv.Atoi(m[3]); err == nil {
			s.Lines = n
		} else {
			s.Lines = -1 // past any file: framed as edited, by its end marker
		}
		for _, f := range strings.Fields(m[5]) {
			switch f {
			case "bom":
				s.BOM = true
			case "crlf":
				s.CRLF = true
			case "noeol":
				s.NoEOL = true
			case "part":
				s.Part = true
			}
		}
		next := s.frame(lines, i+1)
		if len(s.Text) > MaxFileSize {
			return nil, &ParseError{Path: path, Line: s.Header, Err: fmt.Errorf("archived %s is %s, over the %s limit for memory files", s.Source, bytesize.Format(int64(len(s.Text))), bytesize.Format(MaxFileSize))}
		}
		out = append(out, s)
		i = next - 1
	}
	return out, nil
}

// frame fills in the section's text from lines[from:] and returns the
// index of the first line after the section.
func (s *ArchiveSection) frame(lines []string, from int) int {
	end := from + s.Lines
	if s.Lines >= 0 && s.Lines <= len(lines)-from && s.endsAt(lines, end) {
		s.Text = strings.Join(lines[from:end], "")
		return s.skipEnd(lines, end)
	}
	s.Edited = true
	for j := from; j < len(lines); j++ {
		l := strings.TrimRight(lines[j], "\r\n")
		if archiveHeader().MatchString(l) {
			s.Text, s.Lines = strings.Join(lines[from:j], ""), j-from
			return j
		}
		if m := archiveEnd().FindStringSubmatch(l); m != nil && m[1] == s.Source {
			s.Text, s.Lines = strings.Join(lines[from:j], ""), j-from
			return j + 1
		}
	}
	s.Text, s.Lines = strings.Join(lines[from:], ""), len(lines)-from
	return len(lines)
}

// endsAt reports whether the section's end marker follows line i, after
// at most the closing fence the writer adds.
func (s *ArchiveSection) endsAt(lines []string, i int) bool {
	for k := i; k < len(lines) && k <= i+1; k++ {
		if m := archiveEnd().FindStringSubmatch(strings.TrimRight(lines[k], "\r\n")); m != nil {
			return m[1] == s.Source
		}
	}
	return false
}

func (s *ArchiveSection) skipEnd(lines []string, i int) int {
	for ; i < len(lines); i++ {
		if archiveEnd().MatchString(strings.TrimRight(lines[i], "\r\n")) {
			return i + 1
		}
	}
	return i
}

// ArchivePath is the workspace-relative path of a teammate's archive
// file for month (YYYY-MM).
func ArchivePath(name, month string) string {
	return name + "/memory/" + ArchiveDir + "/" + month + ".md"
}

// ArchivedTypedPath is where a typed memory file is kept once absorbed.
func ArchivedTypedPath(name, file string) string {
	return name + "/memory/" + ArchiveDir + "/typed/" + file
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
