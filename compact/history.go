package compact

import (
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

// A typed memory is evolving while it changed in the last EvolvingDays.
// Its modification time alone would not say so: a clone or checkout sets
// every file's to the moment it ran, and two machines holding the same
// files would compact them differently. So a memory last changed at its
// newest stamp or, when later, at the committer time of the last commit
// that changed it if git holds it unchanged in the working tree; only a
// memory git does not hold as committed (changed, staged, untracked, no
// git, no work tree, a git call that fails) falls back to its
// modification time.

// typedHere is the pathspec of the files in git's folder that may be
// typed memories (subfolders left out).
const typedHere = ":(glob)*.md"

// lastChange is when the typed memory fn (its file name) last changed.
func (pl *planner) lastChange(fn string, mf *memFile, d *layout.Doc) time.Time {
	t, ok := pl.commitTimes()[fn]
	if !ok {
		t = mf.ModTime
	}
	if s := d.LastStamp(); s.After(t) {
		t = s
	}
	return t
}

// commitTimes reads, on first use, when git last committed each file of
// the memory folder that the working tree holds unchanged.
func (pl *planner) commitTimes() map[string]time.Time {
	if !pl.gitRead {
		pl.gitRead = true
		pl.committed = commitTimes(merge.Git{Dir: pl.ws.Abs(pl.name + "/memory")})
	}
	return pl.committed
}

// commitTimes returns the committer time of the last commit that changed
// each file of g's folder (by file name), a merge that made its content
// included, leaving out the files the working tree or the index changes.
// It is nil when git cannot say: not installed, not a work tree, a call
// that fails.
func commitTimes(g merge.Git) map[string]time.Time {
	// --cc: a merge names the files it left unlike every parent (a
	// conflict resolved, both sides' changes joined): it made them.
	// Without, git log names no file for a merge. A file a merge took as
	// one side had it goes by the commit that changed it there (-m and
	// --first-parent would date it by the merge). -c names the same
	// files; --diff-merges=dense-combined needs git 2.31.
	log, err := g.Output("log", "--format=%ct", "--name-only", "--cc", "-z", "--", typedHere)
	if err != nil {
		return nil
	}
	times, ok := parseLog(log)
	if !ok || len(times) == 0 {
		return nil
	}
	// core.fsmonitor off: the repository's config could name a program
	// for status to run, and compaction runs from cron on what git pulled.
	st, err := g.Output("-c", "core.fsmonitor=false", "--no-optional-locks", "status", "--porcelain", "-z", "--no-renames", "--untracked-files=no", "--", typedHere)
	if err != nil {
		return nil
	}
	for _, rec := range strings.Split(string(st), "\x00") {
		if len(rec) > 3 {
			delete(times, path.Base(rec[3:]))
		}
	}
	return times
}

// parseLog reads `git log --format=%ct --name-only --cc -z`: each
// commit's time, then the names of the files it changed. A file gets the
// latest time of the commits that name it.
func parseLog(out []byte) (map[string]time.Time, bool) {
	times := map[string]time.Time{}
	var at time.Time
	for _, tok := range strings.Split(string(out), "\x00") {
		tok = strings.TrimLeft(tok, "\n")
		switch {
		case tok == "":
		case strings.HasSuffix(tok, ".md"):
			if at.IsZero() {
				return nil, false
			}
			if f := path.Base(tok); at.After(times[f]) {
				times[f] = at
			}
		default:
			sec, err := strconv.ParseInt(tok, 10, 64)
			if err != nil {
				return nil, false
			}
			at = time.Unix(sec, 0)
		}
	}
	return times, true
}
