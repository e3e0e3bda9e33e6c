package layout

import (
	"context"
	"fmt"
	"strings"
)

// ResealArchives records the sections of teammate name's archive month
// files that a person changed (a secret taken out, say) as they now are:
// each one's header gets the sha256 and line count of the text it holds,
// so that it verifies again, and restoring it gives the text as edited.
// A section whose end marker is gone is left for the person to mend. It
// returns what it did, one line a section, as "path:line: ...".
func (w *Workspace) ResealArchives(ctx context.Context, name string) ([]string, error) {
	files, err := w.Files(name)
	if err != nil {
		return nil, err
	}
	var did []string
	for _, f := range files {
		if f.Kind != KindArchive || !w.needsReseal(f.Path) {
			continue
		}
		var notes []string
		err := w.update(ctx, name, f.Path, func(old []byte, exists bool) ([]byte, error) {
			out, n, err := reseal(f.Path, old)
			notes = n
			return out, err
		})
		if err != nil {
			return did, err
		}
		did = append(did, notes...)
	}
	return did, nil
}

// reseal returns the archive src with the headers of its sections changed
// by hand rewritten to what they now hold (see ResealArchives).
func reseal(path string, src []byte) ([]byte, []string, error) {
	secs, err := ParseArchive(path, src)
	if err != nil {
		return nil, nil, err
	}
	lines := strings.SplitAfter(string(src), "\n")
	var notes []string
	for _, s := range secs {
		if s.Part || !s.Edited && s.Verify() {
			continue
		}
		// An edited section's text runs to its end marker, with the line
		// the writer may have added to close a fence the text left open:
		// kept, as telling it from the person's own closing line cannot
		// be done.
		s.Lines = strings.Count(s.Text, "\n")
		if !s.endsAt(lines, s.Header+s.Lines) {
			notes = append(notes, fmt.Sprintf("%s:%d: the archived %s has no end marker (<!-- tmem:end %s -->); left as it is", path, s.Header, s.Source, s.Source))
			continue
		}
		s.SHA = sha256Hex(s.Original())
		lines[s.Header-1] = s.header()
		notes = append(notes, fmt.Sprintf("%s:%d: recorded the archived %s as changed by hand (sha256 %s…)", path, s.Header, s.Source, s.SHA[:12]))
	}
	return []byte(strings.Join(lines, "")), notes, nil
}

// needsReseal reports whether the archive file at rel has a section
// changed by hand; one that cannot be read or parsed is for doctor to
// report.
func (w *Workspace) needsReseal(rel string) bool {
	src, err := w.ReadFile(rel, MaxArchiveSize)
	if err != nil {
		return false
	}
	secs, err := ParseArchive(rel, src)
	if err != nil {
		return false
	}
	for _, s := range secs {
		if !s.Part && (s.Edited || !s.Verify()) {
			return true
		}
	}
	return false
}
