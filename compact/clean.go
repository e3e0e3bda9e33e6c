package compact

import (
	"context"
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
// teammate's folders, and returns them.
func cleanTemps(ctx context.Context, ws *layout.Workspace, names []string, now time.Time) ([]string, error) {
	out, err := cleanCompactDirs(ws)
	if err != nil {
		return out, err
	}
	for _, name := range names {
		removed, err := cleanTeammate(ctx, ws, name, now)
		out = append(out, removed...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
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
