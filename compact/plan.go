package compact

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v2"

	"github.com/tmemhq/tmem/layout"
)

// planner holds one teammate's files while its units are planned. Typed
// memories and WISDOM.md are kept as an overlay of planned content, so
// that later units (and the semantic pipeline) see earlier units' writes.
type planner struct {
	ctx  context.Context
	ws   *layout.Workspace
	o    *Options
	name string
	now  time.Time
	p    *Plan

	files   []layout.File
	overlay map[string]*memFile // typed memories and WISDOM.md by path
}

// memFile is a file as planned: Content is what it will hold.
type memFile struct {
	Path    string
	Content []byte
	ModTime time.Time
	Fresh   bool // written by this plan
	// Last is the hash the file has once the units planned so far are
	// applied ("" for absent): the Before of the next unit's write.
	Last string
}

// dayFile is a daily log read for planning.
type dayFile struct {
	layout.File
	Body []byte
	SHA  string
}

func planTeammate(ctx context.Context, ws *layout.Workspace, o *Options, name string, p *Plan) error {
	files, err := ws.Files(name)
	if err != nil {
		return fmt.Errorf("compact %s: %w", name, err)
	}
	pl := &planner{ctx: ctx, ws: ws, o: o, name: name, now: o.Now(), p: p, files: files, overlay: map[string]*memFile{}}
	for _, f := range files {
		if f.Kind == layout.KindTyped && f.NameErr == "" || f.Kind == layout.KindWisdom {
			b, err := os.ReadFile(ws.Abs(f.Path))
			if err != nil {
				return fmt.Errorf("compact %s: %w", name, err)
			}
			pl.overlay[f.Path] = &memFile{Path: f.Path, Content: b, Last: sum(b), ModTime: f.ModTime}
		}
	}
	if o.Episodic {
		if err := pl.episodic(); err != nil {
			return err
		}
	}
	if o.Semantic {
		if err := pl.semantic(); err != nil {
			return err
		}
	}
	return nil
}

// shortSum is the hash form used in frontmatter sources.
func shortSum(s string) string { return "sha256:" + s[:12] }

// sourceLine is one `sources:` item: a file (relative to the memory
// folder) and the hash of the content absorbed.
func sourceLine(rel, sha string) string { return rel + " " + shortSum(sha) }

// readSources returns a document's `sources:` list.
func readSources(d *layout.Doc) []string {
	for _, it := range d.Meta {
		if it.Key != "sources" {
			continue
		}
		list, _ := it.Value.([]interface{})
		var out []string
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func toIface(ss []string) []interface{} {
	out := make([]interface{}, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// summary renders a weekly or monthly file.
func summary(meta yaml.MapSlice, body string) []byte {
	d := &layout.Doc{Path: "summary", Meta: meta, HasMeta: true}
	d.Set("type", d.Get("type")) // mark dirty so Bytes renders Meta
	d.Body = []byte("\n" + strings.TrimSpace(body) + "\n")
	return d.Bytes()
}

type weekInfo struct {
	wk      layout.Week
	dailies []dayFile
	weekly  *layout.File
}

// episodic plans the weekly units (completed weeks up to KeepWeeks old)
// and the monthly units (older weeks, by the month of their Thursday).
func (pl *planner) episodic() error {
	cur := layout.WeekOf(pl.now)
	weeks := map[layout.Week]*weekInfo{}
	get := func(w layout.Week) *weekInfo {
		if weeks[w] == nil {
			weeks[w] = &weekInfo{wk: w}
		}
		return weeks[w]
	}
	monthlies := map[string]layout.File{}
	for i := range pl.files {
		f := pl.files[i]
		if f.NameErr != "" {
			continue
		}
		switch f.Kind {
		case layout.KindDaily:
			w := layout.WeekOf(f.Date)
			if !w.Before(cur) {
				continue
			}
			b, err := os.ReadFile(pl.ws.Abs(f.Path))
			if err != nil {
				return fmt.Errorf("compact %s: %w", pl.name, err)
			}
			if err := layout.CheckText(f.Path, b); err != nil {
				pl.p.Failed = append(pl.p.Failed, Failure{Unit: f.Path, Error: err.Error()})
				continue
			}
			wi := get(w)
			wi.dailies = append(wi.dailies, dayFile{File: f, Body: b, SHA: sum(b)})
		case layout.KindWeekly:
			w, _ := layout.ParseWeek(f.Week)
			if !w.Before(cur) {
				continue
			}
			get(w).weekly = &pl.files[i]
		case layout.KindMonthly:
			monthlies[f.Month] = f
		}
	}
	var order []layout.Week
	for w := range weeks {
		order = append(order, w)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Before(order[j]) })
	aged := map[string][]*weekInfo{}
	var months []string
	var young []*weekInfo
	for _, w := range order {
		wi := weeks[w]
		age := int(cur.Start().Sub(w.Start()).Hours()/24) / 7
		if age > pl.o.KeepWeeks {
			m := w.Thursday().Format("2006-01")
			if aged[m] == nil {
				months = append(months, m)
			}
			aged[m] = append(aged[m], wi)
			continue
		}
		young = append(young, wi)
	}
	// Months first: the oldest facts are extracted first.
	for _, m := range months {
		mf, ok := monthlies[m]
		var mp *layout.File
		if ok {
			mp = &mf
		}
		if err := pl.monthly(m, mp, aged[m]); err != nil {
			return err
		}
	}
	for _, wi := range young {
		if err := pl.weekly(wi); err != nil {
			return err
		}
	}
	return nil
}

// readDoc reads and parses a workspace file.
func (pl *planner) readDoc(rel string) (*layout.Doc, string, error) {
	b, err := os.ReadFile(pl.ws.Abs(rel))
	if err != nil {
		return nil, "", err
	}
	d, err := layout.Parse(rel, b)
	return d, sum(b), err
}

// memRel is a path relative to the teammate's memory folder.
func (pl *planner) memRel(path string) string {
	return strings.TrimPrefix(path, pl.name+"/memory/")
}

func (pl *planner) recent(day time.Time) bool {
	return pl.o.KeepRecentDays > 0 && layout.InRecentWindow(day, pl.now, pl.o.KeepRecentDays)
}

// summarize asks the summarizer and validates what comes back.
func (pl *planner) summarize(req Request) (string, error) {
	fmt.Fprintf(pl.o.Log, "summarize %s %s %s (%d sources)\n", pl.name, req.Kind, req.Unit, len(req.Sources))
	out, err := pl.o.Summarizer.Summarize(pl.ctx, req)
	if err != nil {
		return "", err
	}
	if _, trusted := pl.o.Summarizer.(Extractive); !trusted {
		if err := Validate(req, out); err != nil {
			return "", err
		}
		out = keepMarked(req, out)
	} else if strings.TrimSpace(out) == "" {
		return "", fmt.Errorf("%w: empty", ErrInvalidOutput)
	}
	return strings.TrimSpace(out) + "\n", nil
}

// keepMarked appends to a model's weekly or monthly summary every marked
// line of its sources that the model dropped or reworded, so that
// decisions and lessons survive word for word whatever the backend.
func keepMarked(req Request, out string) string {
	if req.Kind == KindWisdom {
		return out
	}
	var missing []string
	seen := map[string]bool{}
	texts := []Source{{Path: "existing", Text: req.Existing}}
	for _, src := range append(texts, req.Sources...) {
		d, err := layout.Parse(src.Path, []byte(src.Text))
		if err != nil {
			continue
		}
		for _, e := range d.Entries {
			for _, l := range scanLines(e.Heading, e.Text) {
				if l.Marked && !seen[l.Text] && !strings.Contains(out, l.Text) {
					seen[l.Text] = true
					missing = append(missing, asItem(l.Text))
				}
			}
		}
	}
	if len(missing) == 0 {
		return out
	}
	return strings.TrimSpace(out) + "\n\n## " + decisionsHeading + " (word for word)\n\n" + strings.Join(missing, "\n") + "\n"
}

// pending splits a week's dailies into those already absorbed (their
// hash is listed in sources) and those with content not yet summarised.
func pending(dailies []dayFile, listed map[string]bool, memRel func(string) string) (todo []dayFile) {
	for _, d := range dailies {
		if !listed[sourceLine(memRel(d.Path), d.SHA)] {
			todo = append(todo, d)
		}
	}
	return todo
}

func set(ss []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range ss {
		m[s] = true
	}
	return m
}

func (pl *planner) dailySources(ds []dayFile) []Source {
	var out []Source
	for _, d := range ds {
		out = append(out, Source{Path: d.Path, Label: d.Date.Format(layout.DateLayout), Text: string(d.Body)})
	}
	return out
}

// weekly plans one completed week that is still young enough for a
// weekly summary.
func (pl *planner) weekly(wi *weekInfo) error {
	wk := wi.wk
	id := pl.name + "/weekly/" + wk.String()
	rel := layout.WeeklyPath(pl.name, wk)
	var doc *layout.Doc
	var before string
	if wi.weekly != nil {
		d, h, err := pl.readDoc(rel)
		if err != nil {
			pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: err.Error()})
			return nil
		}
		doc, before = d, h
	}
	var sources []string
	if doc != nil {
		sources = readSources(doc)
	}
	todo := pending(wi.dailies, set(sources), pl.memRel)
	u := Unit{ID: id, Kind: KindWeekly, Teammate: pl.name}
	if len(todo) > 0 {
		for _, d := range todo {
			sources = appendUnique(sources, sourceLine(pl.memRel(d.Path), d.SHA))
		}
		req := Request{Kind: KindWeekly, Teammate: pl.name, Unit: wk.String(), Period: layout.Period(wk.Start(), wk.End()), Sources: pl.dailySources(todo)}
		writes, ok, err := pl.summaryWrites(id, rel, before, doc, req, "week", todo, sources)
		if err != nil || !ok {
			return err
		}
		u.Writes = writes
	}
	for _, d := range wi.dailies {
		if pl.recent(d.Date) {
			pl.p.Kept = append(pl.p.Kept, Kept{Path: d.Path, Reason: fmt.Sprintf("in the last %d days, which context injects directly; deleted by a later run", pl.o.KeepRecentDays)})
			continue
		}
		u.Deletes = append(u.Deletes, Delete{Path: d.Path, SHA: d.SHA})
	}
	if len(u.Writes)+len(u.Deletes) > 0 {
		pl.p.Units = append(pl.p.Units, u)
	}
	return nil
}

func appendUnique(ss []string, s string) []string {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}

// monthly plans the month m from the weeks older than KeepWeeks whose
// Thursday falls in it: their weekly summaries (and any dailies not yet in
// one) are merged into memory/monthly/m.md.
func (pl *planner) monthly(m string, mf *layout.File, weeks []*weekInfo) error {
	id := pl.name + "/monthly/" + m
	month, _ := time.Parse("2006-01", m)
	rel := layout.MonthlyPath(pl.name, month)
	var doc *layout.Doc
	var before string
	if mf != nil {
		d, h, err := pl.readDoc(rel)
		if err != nil {
			pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: err.Error()})
			return nil
		}
		doc, before = d, h
	}
	var sources []string
	var from, to time.Time
	if doc != nil {
		sources = readSources(doc)
		if f, t, err := layout.ParsePeriod(doc.Get("period")); err == nil {
			from, to = f, t
		}
	}
	listed := set(sources)
	u := Unit{ID: id, Kind: KindMonthly, Teammate: pl.name}
	var inputs []Source
	var extracted []dayFile
	for _, wi := range weeks {
		var body string
		var wsrc []string
		if wi.weekly != nil {
			d, h, err := pl.readDoc(wi.weekly.Path)
			if err != nil {
				pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: err.Error()})
				return nil
			}
			wsrc = readSources(d)
			if !listed[sourceLine(pl.memRel(wi.weekly.Path), h)] {
				body = string(d.Body)
				sources = appendUnique(sources, sourceLine(pl.memRel(wi.weekly.Path), h))
				for _, s := range wsrc {
					sources = appendUnique(sources, s)
				}
			}
			u.Deletes = append(u.Deletes, Delete{Path: wi.weekly.Path, SHA: h})
		}
		all := set(append(append([]string{}, sources...), wsrc...))
		todo := pending(wi.dailies, all, pl.memRel)
		if len(todo) > 0 {
			out, err := pl.summarize(Request{Kind: KindWeekly, Teammate: pl.name, Unit: wi.wk.String(), Period: layout.Period(wi.wk.Start(), wi.wk.End()), Existing: body, Sources: pl.dailySources(todo)})
			if err != nil {
				pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: fmt.Sprintf("week %s: %v", wi.wk, err)})
				return nil
			}
			body = out
			extracted = append(extracted, todo...)
			for _, d := range todo {
				sources = appendUnique(sources, sourceLine(pl.memRel(d.Path), d.SHA))
			}
		}
		for _, d := range wi.dailies {
			u.Deletes = append(u.Deletes, Delete{Path: d.Path, SHA: d.SHA})
		}
		if body != "" {
			inputs = append(inputs, Source{Path: layout.WeeklyPath(pl.name, wi.wk), Label: wi.wk.String(), Text: body})
			if from.IsZero() || wi.wk.Start().Before(from) {
				from = wi.wk.Start()
			}
			if wi.wk.End().After(to) {
				to = wi.wk.End()
			}
		}
	}
	if len(inputs) > 0 {
		req := Request{Kind: KindMonthly, Teammate: pl.name, Unit: m, Period: layout.Period(from, to), Sources: inputs}
		writes, ok, err := pl.summaryWrites(id, rel, before, doc, req, "month", extracted, sources)
		if err != nil || !ok {
			return err
		}
		u.Writes = writes
	}
	if len(u.Writes)+len(u.Deletes) > 0 {
		pl.p.Units = append(pl.p.Units, u)
	}
	return nil
}

// summaryWrites summarises req (merging into doc's body when the summary
// exists), files the facts extracted from the dailies, and returns those
// writes followed by the summary at rel, with frontmatter type, key (week
// or month), teammate, period and sources. ok is false when the
// summarizer failed; the failure is recorded for unit id and its sources
// stay where they are.
func (pl *planner) summaryWrites(id, rel, before string, doc *layout.Doc, req Request, key string, dailies []dayFile, sources []string) (writes []Write, ok bool, err error) {
	if doc != nil {
		req.Existing = string(doc.Body)
	}
	body, err := pl.summarize(req)
	if err != nil {
		pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: err.Error()})
		return nil, false, nil
	}
	writes, err = pl.extract(dailies)
	if err != nil {
		return nil, false, err
	}
	sources = append([]string(nil), sources...)
	sort.Strings(sources)
	meta := yaml.MapSlice{
		{Key: "type", Value: string(req.Kind)},
		{Key: key, Value: req.Unit},
		{Key: "teammate", Value: pl.name},
		{Key: "period", Value: req.Period},
		{Key: "sources", Value: toIface(sources)},
	}
	content := summary(meta, body)
	return append(writes, Write{Path: rel, Before: before, After: sum(content), Content: string(content)}), true, nil
}
