package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// The journal makes a compaction resumable. The whole plan, with every
// output's content and the hash each touched file must have, is written
// atomically to .tmp/compact/journal.json before the first change. Each
// finished unit is then appended to journal.done and fsynced. A rerun
// after a crash applies the units not yet done, then removes both files.
// Every step is a compare-and-swap on content hashes, so repeating one is
// harmless and a file someone else changed is never overwritten or
// deleted.
const (
	journalPath = ".tmp/compact/journal.json"
	donePath    = ".tmp/compact/journal.done"
	// maxJournal bounds what is read of a journal: it holds whole files.
	maxJournal = 1 << 30
)

type journal struct {
	ws   *layout.Workspace
	step func(int)
	n    int
}

func (j *journal) tick() {
	j.n++
	if j.step != nil {
		j.step(j.n)
	}
}

// load returns the pending plan of an interrupted run, or nil.
func (j *journal) load() (*Plan, error) {
	b, err := j.ws.ReadFile(journalPath, maxJournal)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("compact journal: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("compact journal %s: %w (run 'tmem compact --drop-journal' to drop it safely)", journalPath, err)
	}
	done, err := j.done()
	if err != nil {
		return nil, err
	}
	var left []Unit
	for _, u := range p.Units {
		if !done[u.ID] {
			left = append(left, u)
		}
	}
	p.Units = left
	return &p, nil
}

func (j *journal) done() (map[string]bool, error) {
	b, err := j.ws.ReadFile(donePath, maxJournal)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("compact journal: %w", err)
	}
	out := map[string]bool{}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if l != "" && (i < len(lines)-1) { // a torn last line (no newline) does not count
			out[l] = true
		}
	}
	return out, nil
}

// begin records p as the journal.
func (j *journal) begin(p *Plan) error {
	if err := j.remove(donePath); err != nil {
		return err
	}
	// Encoded straight to the file: the plan holds every file it writes,
	// and a first run over years of dailies plans hundreds of MB, which
	// encoding in memory (and indenting) held two and three times over.
	err := j.ws.WriteFileFrom(journalPath, func(w io.Writer) error { return json.NewEncoder(w).Encode(p) })
	if err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	j.tick()
	return nil
}

func (j *journal) markDone(id string) error {
	if err := j.ws.AppendFile(donePath, []byte(id+"\n")); err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	j.tick()
	return nil
}

// apply runs p's units in order, then retires the journal. A unit that
// fails (a folder that cannot be written, a full disk) is recorded in
// res.Failed with its teammate's later units, and the other teammates'
// units go on; the journal is retired all the same, which is as safe as
// DropJournal, so the next run plans the failed units afresh instead of
// failing on them before it compacts anyone. A cancelled run stops before
// its next unit, and a teammate's lock held past the wait stops it at
// once; either leaves the journal for the next run to finish.
func (j *journal) apply(ctx context.Context, p *Plan, res *Result) error {
	failed := map[string]string{} // teammate → the unit of theirs that failed
	left := map[string]string{}   // teammate → the unit of theirs left to the next run
	for i, u := range p.Units {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("compact: stopped with %d of %d unit(s) left to the next run: %w", len(p.Units)-i, len(p.Units), err)
		}
		if first, ok := failed[u.Teammate]; ok {
			res.Failed = append(res.Failed, Failure{Unit: u.ID, Error: "not applied after " + first + " failed; the next run plans it again", after: first})
			continue
		}
		if first, ok := left[u.Teammate]; ok {
			res.Kept = append(res.Kept, Kept{Path: u.ID, Reason: "left to the next run with " + first + ", whose writes it follows"})
		} else if err := j.applyUnit(ctx, u, res); errors.Is(err, errLeft) {
			left[u.Teammate] = u.ID
		} else if err != nil && (ctx.Err() != nil || errors.Is(err, layout.ErrLocked)) {
			return err
		} else if err != nil {
			failed[u.Teammate] = u.ID
			res.Failed = append(res.Failed, Failure{Unit: u.ID, Error: strings.TrimPrefix(err.Error(), "compact "+u.ID+": ") + "; the next run plans it again"})
			continue
		}
		if err := j.markDone(u.ID); err != nil {
			return err
		}
	}
	if err := j.remove(journalPath); err != nil {
		return err
	}
	if err := j.remove(donePath); err != nil {
		return err
	}
	_ = j.ws.Remove(path.Dir(journalPath)) // only when empty: proposals may live there
	return nil
}

// applyUnit does one unit under its teammate's lock: the writes (each a
// compare-and-swap, read back and checked), then the deletes (each only if
// the file still has the hash its content was summarised from). The lock
// is the one AppendDaily and WriteMemory hold, so an entry appended while
// compaction runs either made it into the summary or keeps its daily.
func (j *journal) applyUnit(ctx context.Context, u Unit, res *Result) error {
	unlock, err := j.ws.Lock(ctx, u.Teammate)
	if err != nil {
		return fmt.Errorf("compact %s: %w", u.ID, err)
	}
	defer unlock()
	if p, err := j.changedSource(u); err != nil || p != "" {
		if err != nil {
			return err
		}
		res.Kept = append(res.Kept, Kept{Path: p, Reason: "changed during compaction; " + u.ID + " is left to the next run"})
		return errLeft
	}
	for _, w := range u.Writes {
		cur, _, err := fileSum(j.ws, w.Path)
		if err != nil {
			return fmt.Errorf("compact %s: %w", u.ID, err)
		}
		if cur == w.After {
			continue
		}
		if cur != w.Before {
			res.Failed = append(res.Failed, Failure{Unit: u.ID, Error: fmt.Sprintf("%s changed since it was planned; sources kept, a later run retries", w.Path)})
			return nil
		}
		if err := j.ws.WriteFile(w.Path, []byte(w.Content)); err != nil {
			return fmt.Errorf("compact %s: %w", u.ID, err)
		}
		back, _, err := fileSum(j.ws, w.Path)
		if err != nil {
			return fmt.Errorf("compact %s: read back: %w", u.ID, err)
		}
		if back != w.After {
			return fmt.Errorf("compact %s: read back %s: content differs from what was written", u.ID, w.Path)
		}
		res.Written = append(res.Written, w.Path)
		j.tick()
	}
	for _, d := range u.Deletes {
		cur, _, err := fileSum(j.ws, d.Path)
		if err != nil {
			return fmt.Errorf("compact %s: %w", u.ID, err)
		}
		if cur == "" || d.Stub != "" && cur == sum([]byte(d.Stub)) {
			continue
		}
		if cur != d.SHA {
			res.Kept = append(res.Kept, Kept{Path: d.Path, Reason: "changed during compaction; merged by the next run"})
			continue
		}
		if err := j.archived(u.Teammate, d); err != nil {
			return fmt.Errorf("compact %s: %s is kept: %w", u.ID, d.Path, err)
		}
		if err := j.removeOrStub(d); err != nil {
			return fmt.Errorf("compact %s: %w", u.ID, err)
		}
		res.Deleted = append(res.Deleted, d.Path)
		j.tick()
	}
	return nil
}

// errLeft is applyUnit's answer for a unit left whole to the next run.
var errLeft = errors.New("left to the next run")

// changedSource returns a file u archives and deletes that changed since
// u was planned ("" if none): u's summary lacks what was added, and its
// archive copy is the older one, so u is left whole to the next run,
// which plans it with the file as it is (applying the rest would archive
// the file twice).
func (j *journal) changedSource(u Unit) (string, error) {
	for _, d := range u.Deletes {
		if d.Archive == "" {
			continue // nothing archived twice: the next run merges it in
		}
		cur, _, err := fileSum(j.ws, d.Path)
		if err != nil {
			return "", fmt.Errorf("compact %s: %w", u.ID, err)
		}
		if cur != "" && cur != d.SHA && (d.Stub == "" || cur != sum([]byte(d.Stub))) {
			return d.Path, nil
		}
	}
	return "", nil
}

// removeOrStub removes a compacted file, or replaces it by its stub.
func (j *journal) removeOrStub(d Delete) error {
	if d.Stub == "" {
		return j.ws.Remove(d.Path)
	}
	return j.ws.WriteFile(d.Path, []byte(d.Stub))
}

// remove deletes a journal file durably; one that does not exist is fine.
func (j *journal) remove(rel string) error {
	if _, err := j.ws.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := j.ws.Remove(rel); err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	return nil
}

// archived checks, before a delete, that the archive holds a copy that
// restores the file exactly: a section of a month file, or a whole typed
// memory. A delete without an archive (the archive is off) passes.
func (j *journal) archived(teammate string, d Delete) error {
	if d.Archive == "" {
		return nil
	}
	b, err := j.ws.ReadFile(d.Archive, layout.MaxArchiveSize)
	if err != nil {
		return fmt.Errorf("no archive copy: %w", err)
	}
	if strings.HasPrefix(d.Archive, teammate+"/memory/"+layout.ArchiveDir+"/typed/") {
		if sum(b) != d.SHA {
			return fmt.Errorf("archive copy %s does not match it", d.Archive)
		}
		return nil
	}
	secs, err := layout.ParseArchive(d.Archive, b)
	if err != nil {
		return fmt.Errorf("archive copy: %w", err)
	}
	if _, ok := findSection(secs, strings.TrimPrefix(d.Path, teammate+"/memory/"), d.SHA); !ok {
		return fmt.Errorf("%s holds no copy that restores it", d.Archive)
	}
	return nil
}

// DropJournal removes an interrupted compaction's journal without
// finishing it, under the workspace lock. It is always safe: a unit's
// sources are deleted only after its summary is written and, with the
// archive on, their archive copy is checked, so a dropped unit leaves
// either its sources or their copies; the next run plans afresh.
func DropJournal(ws *layout.Workspace) (bool, error) {
	unlock, err := lockRun(context.Background(), ws, &Options{Log: io.Discard}, &Result{})
	if err != nil {
		return false, err
	}
	defer unlock()
	j := journal{ws: ws}
	if _, err := ws.Lstat(journalPath); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := j.remove(journalPath); err != nil {
		return false, err
	}
	return true, j.remove(donePath)
}
