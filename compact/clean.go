package compact

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// tempAge is how old a temp file beside SOUL.md must be before it counts
// as left behind: tmem init writes there without the teammate's lock.
// Every writer of the memory folders holds the lock, so under it any temp
// file there is a dead writer's.
const tempAge = 10 * time.Minute

// cleanTemps removes the temp files that killed writes left in
// compaction's own folders and, under each teammate's lock, in the
// teammate's folders, and returns them, with the teammates whose lock
// another process held past the wait (their folders are left alone).
func cleanTemps(ctx context.Context, ws *layout.Workspace, names []string, now time.Time) (removed, locked []string, err error) {
	removed, err = cleanCompactDirs(ws)
	if err != nil {
		return removed, nil, err
	}
	for _, name := range names {
		out, err := cleanTeammate(ctx, ws, name, now)
		removed = append(removed, out...)
		switch {
		case err != nil && ctx.Err() == nil && errors.Is(err, layout.ErrLocked):
			locked = append(locked, name)
		case err != nil:
			return removed, locked, err
		}
	}
	return removed, locked, nil
}

// cleanAndSkipLocked cleans up after killed writes (cleanTemps) and
// returns the teammates to compact: a teammate whose lock another process
// holds (a stuck hook, a long edit) is left out of this run as a failure,
// so that the others are compacted all the same.
func cleanAndSkipLocked(ctx context.Context, ws *layout.Workspace, names []string, now time.Time, res *Result) ([]string, error) {
	cleaned, locked, err := cleanTemps(ctx, ws, names, now)
	res.Cleaned = cleaned
	if err != nil || len(locked) == 0 {
		return names, err
	}
	skip := map[string]bool{}
	for _, name := range locked {
		skip[name] = true
		res.Failed = append(res.Failed, Failure{Unit: name, Error: "not compacted this run: its lock is held by another process (" + layout.DirName + "/.tmp/locks/teammate-" + name + ".lock)", locked: true})
	}
	var keep []string
	for _, name := range names {
		if !skip[name] {
			keep = append(keep, name)
		}
	}
	return keep, nil
}

func cleanTeammate(ctx context.Context, ws *layout.Workspace, name string, now time.Time) ([]string, error) {
	unlock, err := ws.Lock(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", name, err)
	}
	defer unlock()
	temps, err := ws.TempFiles(name)
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", name, err)
	}
	var out []string
	for _, rel := range temps {
		st, err := ws.Lstat(rel)
		if err != nil || path.Dir(rel) == name && now.Sub(st.ModTime()) < tempAge {
			continue
		}
		if err := ws.Remove(rel); err != nil {
			return out, fmt.Errorf("compact %s: %w", name, err)
		}
		out = append(out, rel)
	}
	return out, nil
}

// compactDirs are the folders that only a compaction writes, holding the
// workspace lock: a temp file there is a killed run's (a journal cut short
// can be as large as every file the plan writes).
var compactDirs = []string{path.Dir(journalPath), ProposalDir}

// cleanCompactDirs removes the temp files in compactDirs; the caller
// holds the workspace lock.
func cleanCompactDirs(ws *layout.Workspace) ([]string, error) {
	var out []string
	for _, dir := range compactDirs {
		ents, err := ws.ReadDir(dir)
		if err != nil {
			return out, fmt.Errorf("compact: %w", err)
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || !layout.IsTempName(e.Name()) {
				continue
			}
			rel := dir + "/" + e.Name()
			if err := ws.Remove(rel); err != nil {
				return out, fmt.Errorf("compact: %w", err)
			}
			out = append(out, rel)
		}
	}
	return out, nil
}
