package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/lazyregexp"
)

// Kind classifies a memory file.
type Kind string

// The kinds of memory file.
const (
	KindSoul      Kind = "soul"
	KindGoals     Kind = "goals"
	KindWisdom    Kind = "wisdom"
	KindDaily     Kind = "daily"
	KindTyped     Kind = "typed"
	KindWeekly    Kind = "weekly"
	KindMonthly   Kind = "monthly"
	KindCrossTeam Kind = "crossteam"
	// KindArchive is memory/archive/: the month files that keep what
	// compaction removed, and the typed memories absorbed into WISDOM.md.
	KindArchive Kind = "archive"
)

// Kinds lists every kind, in listing order.
var Kinds = []Kind{KindSoul, KindGoals, KindWisdom, KindDaily, KindTyped, KindWeekly, KindMonthly, KindCrossTeam, KindArchive}

// The four typed-memory types.
var Types = []string{"user", "feedback", "project", "reference"}

// KnownType reports whether t is one of Types.
func KnownType(t string) bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// File is one memory file, as seen by a directory listing: nothing here
// needs the file's contents.
type File struct {
	Teammate string    // "" for workspace-level files
	Kind     Kind      //
	Path     string    // relative to the workspace root, slash-separated
	Date     time.Time // daily: its day; weekly: its Monday; monthly: its 1st
	Week     string    // weekly: "2026-W11"
	Month    string    // monthly: "2026-03"
	Type     string    // typed, and archived typed memories: from the file name prefix
	Size     int64
	ModTime  time.Time
	// NameErr says why the file name does not fit its kind (a daily for
	// 2026-02-30, a weekly for a week that does not exist); the file is
	// still listed.
	NameErr string
}

var (
	dailyRe   = lazyregexp.New(`^\d{4}-\d{2}-\d{2}\.md$`)
	weeklyRe  = lazyregexp.New(`^\d{4}-W\d{2}\.md$`)
	monthlyRe = lazyregexp.New(`^\d{4}-\d{2}\.md$`)
)

// MemoryDirs are the folders of a teammate that hold memory files, below
// the teammate's folder.
var MemoryDirs = []string{"memory", "memory/weekly", "memory/monthly", "memory/" + ArchiveDir, "memory/" + ArchiveDir + "/typed"}

// Files lists a teammate's memory files (SOUL, GOALS, WISDOM, dailies,
// typed memories, weekly and monthly summaries), sorted by path. Dot-files
// and files that are not Markdown are skipped.
func (w *Workspace) Files(name string) ([]File, error) {
	files, _, err := w.FilesChecked(name)
	return files, err
}

// FilesChecked is Files, with an error for each Markdown name in the
// memory folders that Files leaves out because it cannot be read: not a
// regular file (a folder, a named pipe, a device) or a link leading
// outside the workspace or nowhere; and for each memory folder that is
// not a folder or leads outside. Nothing is opened to find them.
func (w *Workspace) FilesChecked(name string) (files []File, unusable []error, err error) {
	if err := ValidateName(name); err != nil {
		return nil, nil, err
	}
	var out []File
	for _, k := range []struct {
		file string
		kind Kind
	}{{"SOUL.md", KindSoul}, {"GOALS.md", KindGoals}, {"WISDOM.md", KindWisdom}} {
		if st, err := w.Stat(name + "/" + k.file); err == nil && st.Mode().IsRegular() {
			out = append(out, File{Teammate: name, Kind: k.kind, Path: name + "/" + k.file, Size: st.Size(), ModTime: st.ModTime()})
		}
	}
	err = w.ListMemoryDirs(name, func(sub string, ents []fs.DirEntry) {
		files, bad := w.memoryFiles(name, sub, ents)
		out, unusable = append(out, files...), append(unusable, bad...)
	}, func(err error) { unusable = append(unusable, err) }) // checkTree reports it
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, unusable, nil
}

// ListMemoryDirs lists each of the teammate's MemoryDirs, in order, and
// calls fn with its entries. A folder that leads outside the workspace or
// is not a folder goes to skip instead, and nothing beneath it is listed;
// any other error stops the listing.
func (w *Workspace) ListMemoryDirs(name string, fn func(sub string, ents []fs.DirEntry), skip func(error)) error {
	var gone []string
	for _, sub := range MemoryDirs {
		if slices.ContainsFunc(gone, func(g string) bool { return strings.HasPrefix(sub, g+"/") }) {
			continue
		}
		dir := name + "/" + sub
		ents, err := w.ReadDir(dir)
		switch {
		case errors.Is(err, ErrOutside), errors.Is(err, ErrNotFolder):
			skip(err)
			gone = append(gone, sub)
		case err != nil:
			return fmt.Errorf("list %s: %w", dir, err)
		default:
			fn(sub, ents)
		}
	}
	return nil
}

// memoryFiles returns the memory files among the entries of the
// teammate's folder sub (one of MemoryDirs), with an error for each
// Markdown name it leaves out.
func (w *Workspace) memoryFiles(name, sub string, ents []fs.DirEntry) (out []File, unusable []error) {
	dir := name + "/" + sub
	for _, e := range ents {
		fn := e.Name()
		if strings.HasPrefix(fn, ".") || !strings.HasSuffix(fn, ".md") {
			continue
		}
		info, err := w.EntryCheck(dir, e)
		if err != nil {
			unusable = append(unusable, err)
			continue
		}
		f := Classify(name, sub, fn)
		f.Size, f.ModTime = info.Size(), info.ModTime()
		out = append(out, f)
	}
	return out, unusable
}

// RecentDailies returns the teammate's daily logs of the days days up to
// now's, and after them up to LatestDay(now) (see InRecentWindow), as Files would list
// them, by looking each name up instead of listing the memory folder: a
// prompt needs only those, and years of memory make the folder long. Days
// without a regular file are left out, as Files leaves them.
func (w *Workspace) RecentDailies(name string, now time.Time, days int) ([]File, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	var out []File
	today := Day(now)
	if days <= 0 {
		return nil, nil
	}
	latest := LatestDay(now)
	for d := today.AddDate(0, 0, -(days - 1)); !d.After(latest); d = d.AddDate(0, 0, 1) {
		fn := d.Format(DateLayout) + ".md"
		f := Classify(name, "memory", fn)
		st, err := w.Stat(f.Path)
		if err != nil || !st.Mode().IsRegular() {
			continue // none that day, or a link leading outside or not a file: doctor reports those
		}
		f.Size, f.ModTime = st.Size(), st.ModTime()
		out = append(out, f)
	}
	return out, nil
}

// CrossTeam returns the workspace's CROSS-TEAM.md, if it exists.
func (w *Workspace) CrossTeam() (File, bool) {
	st, err := w.Stat("CROSS-TEAM.md")
	if err != nil {
		return File{}, false
	}
	return File{Kind: KindCrossTeam, Path: "CROSS-TEAM.md", Size: st.Size(), ModTime: st.ModTime()}, true
}

// Classify names the kind of the file fn in the teammate's folder sub
// (one of MemoryDirs).
func Classify(teammate, sub, fn string) File {
	f := File{Teammate: teammate, Path: teammate + "/" + sub + "/" + fn}
	base := strings.TrimSuffix(fn, ".md")
	switch {
	case sub == "memory/"+ArchiveDir:
		f.Kind, f.Month = KindArchive, base
		t, err := time.Parse("2006-01", base)
		if !monthlyRe().MatchString(fn) || err != nil || t.Year() < 1 {
			f.NameErr = fmt.Sprintf("archive file name %q is not a valid YYYY-MM.md", fn)
		} else {
			f.Date = t
		}
	case sub == "memory/"+ArchiveDir+"/typed":
		f.Kind = KindArchive
		if t, _, ok := strings.Cut(base, "_"); ok {
			f.Type = t
		} else {
			f.NameErr = fmt.Sprintf("archived typed memory file name %q is not <type>_<topic>.md", fn)
		}
	case sub == "memory/weekly":
		f.Kind, f.Week = KindWeekly, base
		if !weeklyRe().MatchString(fn) {
			f.NameErr = fmt.Sprintf("weekly summary file name %q is not YYYY-Wnn.md", fn)
		} else if wk, err := ParseWeek(base); err != nil {
			f.NameErr = err.Error()
		} else {
			f.Date = wk.Start()
		}
	case sub == "memory/monthly":
		f.Kind, f.Month = KindMonthly, base
		t, err := time.Parse("2006-01", base)
		if !monthlyRe().MatchString(fn) || err != nil || t.Year() < 1 {
			f.NameErr = fmt.Sprintf("monthly summary file name %q is not a valid YYYY-MM.md", fn)
		} else {
			f.Date = t
		}
	case dailyRe().MatchString(fn):
		f.Kind = KindDaily
		t, err := time.Parse(DateLayout, base)
		if err != nil || t.Year() < 1 {
			f.NameErr = fmt.Sprintf("daily log file name %q is not a real date", fn)
		} else {
			f.Date = t
		}
	default:
		f.Kind = KindTyped
		if t, _, ok := strings.Cut(base, "_"); ok {
			f.Type = t
		} else if day, err := time.Parse("2006-1-2", base); err == nil && day.Year() >= 1 {
			f.NameErr = fmt.Sprintf("file name %q is not a daily log's YYYY-MM-DD.md, so tmem reads it as a typed memory; rename it %s.md", fn, day.Format(DateLayout))
		} else {
			f.NameErr = fmt.Sprintf("typed memory file name %q is not <type>_<topic>.md", fn)
		}
	}
	return f
}

// DailyPath is the workspace-relative path of a teammate's daily log.
func DailyPath(name string, day time.Time) string {
	return name + "/memory/" + day.Format(DateLayout) + ".md"
}

// TypedPath is the workspace-relative path of a typed memory.
func TypedPath(name, typ, slug string) string {
	return name + "/memory/" + typ + "_" + slug + ".md"
}

// WeeklyPath is the workspace-relative path of a weekly summary.
func WeeklyPath(name string, wk Week) string { return name + "/memory/weekly/" + wk.String() + ".md" }

// MonthlyPath is the workspace-relative path of a monthly summary.
func MonthlyPath(name string, month time.Time) string {
	return name + "/memory/monthly/" + month.Format("2006-01") + ".md"
}
