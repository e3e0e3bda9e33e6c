package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	b, err := os.ReadFile(j.ws.Abs(journalPath))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("compact journal: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("compact journal %s: %w (delete it to start over; no file was changed by a unit that had not started)", journalPath, err)
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
	b, err := os.ReadFile(j.ws.Abs(donePath))
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
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	if err := j.ws.WriteFile(journalPath, b); err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	j.tick()
	return nil
}

func (j *journal) markDone(id string) error {
	abs := j.ws.Abs(donePath)
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	if _, err := f.WriteString(id + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("compact journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("compact journal: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	j.tick()
	return nil
}

// apply runs p's units in order, then retires the journal.
func (j *journal) apply(ctx context.Context, p *Plan, res *Result) error {
	for _, u := range p.Units {
		if err := j.applyUnit(ctx, u, res); err != nil {
			return err
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
	_ = os.Remove(filepath.Dir(j.ws.Abs(journalPath)))
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
		if cur == "" {
			continue
		}
		if cur != d.SHA {
			res.Kept = append(res.Kept, Kept{Path: d.Path, Reason: "changed during compaction; merged by the next run"})
			continue
		}
		if err := j.ws.Remove(d.Path); err != nil {
			return fmt.Errorf("compact %s: %w", u.ID, err)
		}
		res.Deleted = append(res.Deleted, d.Path)
		j.tick()
	}
	return nil
}

// remove deletes a journal file durably; one that does not exist is fine.
func (j *journal) remove(rel string) error {
	if _, err := os.Lstat(j.ws.Abs(rel)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := j.ws.Remove(rel); err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	return nil
}
