package compact

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/lazyregexp"
	"github.com/tmemhq/tmem/layout"
)

// weekInfo is one completed ISO week: its daily logs still on disk and its
// weekly summary, if any.
type weekInfo struct {
	wk      layout.Week
	dailies []dayFile
	weekly  *layout.File
}

// episodic plans the weekly units (completed weeks up to KeepWeeks old)
// and the monthly units (older weeks, by the month of their Thursday).
func (pl *planner) episodic() error {
	weeks, err := pl.completedWeeks()
	if err != nil {
		return err
	}
	cur := layout.WeekOf(pl.now)
	aged := map[string][]*weekInfo{}
	var months []string
	var young []*weekInfo
	for _, wi := range weeks {
		if age := int(cur.Start().Sub(wi.wk.Start()).Hours()/24) / 7; age <= pl.o.KeepWeeks {
			young = append(young, wi)
			continue
		}
		m := wi.wk.Thursday().Format("2006-01")
		if aged[m] == nil {
			months = append(months, m)
		}
		aged[m] = append(aged[m], wi)
	}
	// Months first: the oldest facts are extracted first.
	for _, m := range months {
		if pl.o.stopped() {
			return ErrStopped
		}
		if id := pl.name + "/monthly/" + m; pl.o.plans(id) {
			pl.monthly(id, m, aged[m])
		}
	}
	for _, wi := range young {
		if pl.o.stopped() {
			return ErrStopped
		}
		if id := pl.name + "/weekly/" + wi.wk.String(); pl.o.plans(id) {
			pl.weekly(id, wi)
		}
	}
	return nil
}

// completedWeeks groups the dailies and weeklies of weeks before the
// current one, oldest first. A daily readDaily refuses is left where it
// is and reported; its week is compacted without it, and the daily joins
// the week's summary as a late one once it is put right.
func (pl *planner) completedWeeks() ([]*weekInfo, error) {
	cur := layout.WeekOf(pl.now)
	weeks := map[layout.Week]*weekInfo{}
	get := func(w layout.Week) *weekInfo {
		if weeks[w] == nil {
			weeks[w] = &weekInfo{wk: w}
		}
		return weeks[w]
	}
	for _, f := range pl.filesOf(layout.KindDaily) {
		if w := layout.WeekOf(f.Date); w.Before(cur) {
			d, err := pl.readDaily(f)
			if err != nil {
				pl.skip(f.Path, err)
				continue
			}
			wi := get(w)
			wi.dailies = append(wi.dailies, d)
		}
	}
	for _, f := range pl.filesOf(layout.KindWeekly) {
		if w, err := layout.ParseWeek(f.Week); err == nil && w.Before(cur) {
			f := f
			get(w).weekly = &f
		}
	}
	var out []*weekInfo
	for _, wi := range weeks {
		out = append(out, wi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].wk.Before(out[j].wk) })
	return out, nil
}

// readDaily reads the daily f for planning. It fails, and the daily is
// left where it is, when it cannot be read, is not text, holds conflict
// markers or frontmatter that does not parse, or would be summarised and
// archived as a day it does not hold: a link (to another day's log, say),
// or a log whose title names another day.
func (pl *planner) readDaily(f layout.File) (dayFile, error) {
	if st, err := pl.ws.Lstat(f.Path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return dayFile{}, &layout.ParseError{Path: f.Path, Err: errors.New("a link; left as it is: a daily is summarised and archived under its own name, so make it a file of its own or remove it")}
	}
	b, err := pl.ws.ReadFile(f.Path, layout.MaxFileSize)
	if err == nil {
		err = layout.CheckText(f.Path, b)
	}
	if err == nil {
		err = unresolved(f.Path, b)
	}
	var doc *layout.Doc
	if err == nil {
		doc, err = layout.Parse(f.Path, b)
	}
	if err != nil {
		return dayFile{}, err
	}
	if day := f.Date.Format(layout.DateLayout); layout.TitleNamesAnotherDay(doc.Title, day) {
		return dayFile{}, &layout.ParseError{Path: f.Path, Line: doc.TitleLine, Err: fmt.Errorf("title %q does not match the file name's date %s; left as it is: fix the title, or move the log to the file of its day", doc.Title, day)}
	}
	return dayFile{File: f, Body: b, SHA: sum(b)}, nil
}

// startSummary starts the unit id that writes the summary at rel: the
// summary as it is (nil when there is none), the sources it lists and the
// unit. A summary that cannot be read fails the unit (ok is false).
func (pl *planner) startSummary(id, rel string, kind Kind) (doc *layout.Doc, srcs *sourceList, ub *unit, ok bool) {
	doc, _, err := pl.readSummary(rel)
	if err != nil {
		pl.fail(id, err)
		return nil, nil, nil, false
	}
	srcs = &sourceList{}
	if doc != nil {
		srcs.refs = readSources(doc)
	}
	return doc, srcs, pl.newUnit(id, kind), true
}

// readSummary reads an existing summary; nil when there is none.
func (pl *planner) readSummary(rel string) (*layout.Doc, *memFile, error) {
	mf, err := pl.file(rel)
	if err != nil || !mf.Exists {
		return nil, mf, err
	}
	if err := unresolved(rel, mf.Content); err != nil {
		return nil, mf, err
	}
	d, err := layout.Parse(rel, mf.Content)
	return d, mf, err
}

// weekly plans one completed week that is young enough for a weekly
// summary: the dailies not yet in it are summarised into it, their facts
// filed, and every daily outside the recent window archived and deleted.
func (pl *planner) weekly(id string, wi *weekInfo) {
	rel := layout.WeeklyPath(pl.name, wi.wk)
	doc, srcs, ub, ok := pl.startSummary(id, rel, KindWeekly)
	if !ok {
		return
	}
	var todo []Source
	var facts []dayFile
	for _, d := range wi.dailies {
		if pl.stubOnly(ub, d) {
			continue
		}
		where := pl.memRel(d.Path)
		var err error
		if pl.recent(d.Date) {
			pl.p.Kept = append(pl.p.Kept, Kept{Path: d.Path, Reason: fmt.Sprintf("in the last %d days, which context injects directly; archived by a later run", pl.o.KeepRecentDays)})
		} else if where, err = ub.archiveLog(d.Path, d.Body, d.SHA, d.Date.Format("2006-01"), pl.stubOf(d)); err != nil {
			ub.abandon()
			pl.fail(id, err)
			return
		}
		if !srcs.has(pl.memRel(d.Path), d.SHA) {
			todo = append(todo, Source{Path: d.Path, Label: d.Date.Format(layout.DateLayout), Text: string(d.Body), Where: logTarget(pl.memRel(d.Path), where)})
			facts = append(facts, d)
		}
		srcs.add(pl.memRel(d.Path), d.SHA, where)
	}
	req := Request{Kind: KindWeekly, Teammate: pl.name, Unit: wi.wk.String(), Period: layout.Period(wi.wk.Start(), wi.wk.End()), Sources: todo, Budget: pl.o.WeeklyBudget}
	if doc == nil && len(srcs.refs) == 0 {
		ub.done() // only stubs, nothing to summarise
		return
	}
	if err := pl.writeSummary(ub, rel, doc, req, "week", srcs, facts); err != nil {
		ub.abandon()
		pl.fail(id, err)
		return
	}
	ub.done()
}

// writeSummary plans the summary at rel: the sources in req summarised
// into doc's body (doc's body as it is when there are none, with its "Log:"
// lines pointing where the days now are), the facts of dailies filed as
// typed memories, and the frontmatter listing srcs. A summary with
// nothing new to fold in, none of its days moved, is left as written.
func (pl *planner) writeSummary(ub *unit, rel string, doc *layout.Doc, req Request, key string, srcs *sourceList, dailies []dayFile) error {
	var body string
	if doc != nil {
		body = relocate(string(doc.Body), srcs)
		if len(req.Sources) == 0 && body == string(doc.Body) && slices.Equal(srcs.strings(), (&sourceList{refs: readSources(doc)}).strings()) {
			return nil
		}
		req.Existing = body
		if from, to, err := layout.ParsePeriod(doc.Get("period")); err == nil && req.Kind == KindMonthly {
			req.Period = widen(req.Period, from, to)
		}
	}
	if len(req.Sources) > 0 {
		out, err := pl.summarize(req)
		if err != nil {
			return err
		}
		body = out
		if err := pl.extract(ub, dailies); err != nil {
			return err
		}
	}
	content, err := summaryFile(doc, rel, req.Kind, key, req.Unit, pl.name, req.Period, srcs.strings(), body)
	if err != nil {
		return err
	}
	return ub.write(rel, content)
}

// relocate points a summary's "Log: <daily>.md" lines at the archive once
// those dailies are archived. A citation by archive lines, which a merge
// of the archive can shift, becomes one by the source's name.
func relocate(body string, srcs *sourceList) string {
	for i, r := range srcs.refs {
		if m := lineCitation().FindStringSubmatch(r.Where); m != nil {
			body = strings.ReplaceAll(body, "\n"+logPrefix+r.Where+"\n", "\n"+logPrefix+logTarget(r.File, m[1])+"\n")
			srcs.refs[i].Where, r.Where = m[1], m[1]
		}
		if r.Where != "" && r.Where != r.File {
			body = strings.ReplaceAll(body, "\n"+logPrefix+r.File+"\n", "\n"+logPrefix+logTarget(r.File, r.Where)+"\n")
		}
	}
	return body
}

// lineCitation matches the archive citation by lines older versions
// wrote ("archive/2026-03.md:12-40").
var lineCitation = lazyregexp.New(`^(` + layout.ArchiveDir + `/[^\s:]+\.md):\d+-\d+$`)

// logTarget is what a day section's "Log:" line says of the source file
// whose full text is at where: the file while it is still in memory/, else
// "<file> in <archive file>", the section of that archive file with the
// file's name. "" when the full text is kept nowhere.
func logTarget(file, where string) string {
	if where == "" || where == file {
		return where
	}
	return file + " in " + where
}

// widen returns the period "from to to" that covers p and [from, to].
func widen(p string, from, to time.Time) string {
	a, b, err := layout.ParsePeriod(p)
	if err != nil {
		return layout.Period(from, to)
	}
	if from.Before(a) {
		a = from
	}
	if to.After(b) {
		b = to
	}
	return layout.Period(a, b)
}

// monthly plans the month m from the weeks older than KeepWeeks whose
// Thursday falls in it: their weekly summaries, and any dailies not yet in
// one, are merged into memory/monthly/m.md; the weeklies and dailies are
// archived and deleted.
func (pl *planner) monthly(id, m string, weeks []*weekInfo) {
	month, _ := time.Parse("2006-01", m)
	rel := layout.MonthlyPath(pl.name, month)
	doc, srcs, ub, ok := pl.startSummary(id, rel, KindMonthly)
	if !ok {
		return
	}
	var inputs []Source
	var facts []dayFile
	var from, to time.Time
	for _, wi := range weeks {
		in, fs, err := pl.monthWeek(ub, wi, m, srcs)
		if err != nil {
			ub.abandon()
			pl.fail(id, fmt.Errorf("week %s: %w", wi.wk, err))
			return
		}
		facts = append(facts, fs...)
		if in != nil {
			inputs = append(inputs, *in)
			if from.IsZero() {
				from = wi.wk.Start()
			}
			to = wi.wk.End()
		}
	}
	req := Request{Kind: KindMonthly, Teammate: pl.name, Unit: m, Sources: inputs, Budget: pl.o.MonthlyBudget}
	if len(inputs) > 0 {
		req.Period = layout.Period(from, to)
	} else if doc != nil {
		req.Period = doc.Get("period")
	}
	if err := pl.writeSummary(ub, rel, doc, req, "month", srcs, facts); err != nil {
		ub.abandon()
		pl.fail(id, err)
		return
	}
	ub.done()
}

// monthWeek plans one week of a monthly: it archives and deletes the
// week's weekly and dailies and returns the week's text to merge (nil when
// the monthly has it all) and the dailies whose facts are not filed yet.
func (pl *planner) monthWeek(ub *unit, wi *weekInfo, m string, srcs *sourceList) (*Source, []dayFile, error) {
	var body string
	var weeklySrcs []sourceRef
	if wi.weekly != nil {
		d, mf, err := pl.readSummary(wi.weekly.Path)
		if err != nil {
			return nil, nil, err
		}
		weeklySrcs = readSources(d)
		where, err := ub.archiveLog(wi.weekly.Path, mf.Content, mf.Last, m, nil)
		if err != nil {
			return nil, nil, err
		}
		if !srcs.has(pl.memRel(wi.weekly.Path), mf.Last) {
			body = string(d.Body)
			for _, r := range weeklySrcs {
				srcs.refs = appendRef(srcs.refs, r)
			}
		}
		srcs.add(pl.memRel(wi.weekly.Path), mf.Last, where)
	}
	listed := &sourceList{refs: append(append([]sourceRef(nil), srcs.refs...), weeklySrcs...)}
	var todo []Source
	var facts []dayFile
	for _, d := range wi.dailies {
		if pl.stubOnly(ub, d) {
			continue
		}
		where, err := ub.archiveLog(d.Path, d.Body, d.SHA, d.Date.Format("2006-01"), pl.stubOf(d))
		if err != nil {
			return nil, nil, err
		}
		if !listed.has(pl.memRel(d.Path), d.SHA) {
			todo = append(todo, Source{Path: d.Path, Label: d.Date.Format(layout.DateLayout), Text: string(d.Body), Where: logTarget(pl.memRel(d.Path), where)})
			facts = append(facts, d)
		}
		srcs.add(pl.memRel(d.Path), d.SHA, where)
	}
	if len(todo) > 0 {
		out, err := pl.summarize(Request{Kind: KindWeekly, Teammate: pl.name, Unit: wi.wk.String(), Period: layout.Period(wi.wk.Start(), wi.wk.End()), Existing: body, Sources: todo, Budget: pl.o.WeeklyBudget})
		if err != nil {
			return nil, nil, err
		}
		body = out
	}
	if body == "" {
		return nil, facts, nil
	}
	return &Source{Path: layout.WeeklyPath(pl.name, wi.wk), Label: wi.wk.String(), Text: body}, facts, nil
}

func appendRef(refs []sourceRef, r sourceRef) []sourceRef {
	for _, x := range refs {
		if x.File == r.File && x.SHA == r.SHA {
			return refs
		}
	}
	return append(refs, r)
}

// stubOnly reports whether d is a compacted daily's stub with nothing
// appended since; a stub old enough to go is planned for deletion.
func (pl *planner) stubOnly(ub *unit, d dayFile) bool {
	if !layout.IsBareStub(d.Date, d.Body) {
		return false
	}
	if pl.stubOf(d) == nil {
		ub.remove(d.Path, d.SHA, "", nil)
	}
	return true
}

// stubOf returns the stub that replaces the daily d once it is compacted,
// nil when d is already too old to keep one (or stubs are off): then d is
// deleted, as its stub would be by the next run, and a second run with
// the same clock has nothing to do.
func (pl *planner) stubOf(d dayFile) []byte {
	if pl.o.KeepStubDays < 0 || !layout.InRecentWindow(d.Date, pl.now, pl.o.KeepStubDays+1) {
		return nil
	}
	return layout.DailyStub(d.Date, pl.o.archive())
}
