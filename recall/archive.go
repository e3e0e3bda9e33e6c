package recall

import (
	"fmt"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// chunkArchive splits an archive month file section by section: each
// archived source is parsed on its own (its frontmatter, title and
// entries), dated by its own name, and its chunks carry the lines they
// have in the archive file.
func chunkArchive(f layout.File, src []byte, opts ChunkOptions) ([]Chunk, error) {
	secs, err := layout.ParseArchive(f.Path, src)
	if err != nil {
		return nil, err
	}
	var out []Chunk
	for _, s := range secs {
		sf := archivedFile(f, s)
		doc, _, err := layout.ParseLenient(f.Path, []byte(s.Text))
		if err != nil {
			continue // a section that no longer parses is skipped, the rest still found
		}
		for _, c := range chunkDoc(sf, doc, opts) {
			c.Kind, c.Path, c.Source, c.Section = string(layout.KindArchive), f.Path, s.Source, s.Header+1
			c.StartLine += s.Header
			c.EndLine += s.Header
			c.Ordinal = len(out)
			c.ID = fmt.Sprintf("%s#%d", f.Path, c.Ordinal)
			out = append(out, c)
		}
	}
	return out, nil
}

// archivedFile is the file an archive section holds, classified by its
// own name so that it is dated as it was.
func archivedFile(archive layout.File, s layout.ArchiveSection) layout.File {
	sub, name := archivedSource(s.Source)
	f := layout.Classify(archive.Teammate, sub, name)
	f.Path = archive.Path
	return f
}

// archivedSource splits an archived source ("2026-03-09.md",
// "weekly/2026-W10.md") into the teammate sub-folder it came from and its
// file name.
func archivedSource(source string) (sub, name string) {
	if i := strings.LastIndex(source, "/"); i >= 0 {
		return "memory/" + source[:i], source[i+1:]
	}
	return "memory", source
}

// dateKind is the kind whose date tokens a chunk gets: an archived
// weekly summary covers its week, like a weekly.
func dateKind(c Chunk) string {
	if c.Kind == string(layout.KindArchive) && strings.HasPrefix(c.Source, "weekly/") {
		return string(layout.KindWeekly)
	}
	return c.Kind
}
