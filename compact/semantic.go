package compact

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/templates"
)

// wisdomEntry is one "##" entry of WISDOM.md.
type wisdomEntry struct {
	Title   string
	Text    string   // without the Sources line
	Sources []string // memory file names absorbed
	Start   int      // body lines (1-based, inclusive); 0 for new entries
	End     int
	changed bool
	added   []Source
}

var sourcesLine = regexp.MustCompile(`(?m)^Sources:\s*(.*)$`)

func parseWisdomEntry(e layout.Entry) *wisdomEntry {
	we := &wisdomEntry{Title: e.Heading, Text: e.Text, Start: e.Start, End: e.End}
	if m := sourcesLine.FindStringSubmatchIndex(e.Text); m != nil {
		list := e.Text[m[2]:m[3]]
		for _, s := range strings.Split(list, ",") {
			if s = strings.TrimSpace(s); s != "" {
				we.Sources = append(we.Sources, s)
			}
		}
		we.Text = strings.TrimSpace(e.Text[:m[0]] + e.Text[m[1]:])
	}
	return we
}

func (we *wisdomEntry) render() string {
	var b strings.Builder
	b.WriteString("## " + we.Title + "\n\n" + strings.TrimSpace(we.Text) + "\n")
	if len(we.Sources) > 0 {
		b.WriteString("\nSources: " + strings.Join(we.Sources, ", ") + "\n")
	}
	return b.String()
}

// activeMark follows a source that was still evolving when it joined an
// entry: it is kept, and absorbed (deleted) once it settles.
const activeMark = " (active)"

// absorb adds m to the entry's sources. A settled memory is deleted; one
// still evolving is cited as active and kept.
func (we *wisdomEntry) absorb(m *memory, label string, u *Unit) {
	we.changed = true
	we.added = append(we.added, Source{Path: m.mf.Path, Label: label, Text: m.body})
	if m.evol {
		we.Sources = appendUnique(we.Sources, m.name+activeMark)
		return
	}
	for i, s := range we.Sources {
		if s == m.name+activeMark {
			we.Sources = append(we.Sources[:i:i], we.Sources[i+1:]...)
			break
		}
	}
	we.Sources = appendUnique(we.Sources, m.name)
	u.Deletes = append(u.Deletes, Delete{Path: m.mf.Path, SHA: m.mf.Last})
}

// memory is a typed memory considered for wisdom.
type memory struct {
	mf   *memFile
	name string // file name, e.g. feedback_no_mocks.md
	text string // name, description and rule, for similarity
	body string
	evol bool
}

// rule is a memory body's first paragraph: the rule or fact it states,
// without the Why and How-to-apply detail that would dilute similarity.
func rule(body string) string {
	p, _, _ := strings.Cut(strings.TrimSpace(body), "\n\n")
	return p
}

// Tokens estimates the tokens of s as its length over four.
func Tokens(s string) int { return (len(s) + 3) / 4 }

// semantic plans the WISDOM.md unit: typed memories that say the same
// thing become (or reinforce) one entry; absorbed memories that are no
// longer evolving are deleted.
func (pl *planner) semantic() error {
	id := pl.name + "/wisdom"
	rel := pl.name + "/WISDOM.md"
	wf := pl.overlay[rel]
	if wf == nil {
		tpl, err := templates.Read(pl.ws.TemplatesDir(), templates.Wisdom)
		if err != nil {
			return fmt.Errorf("compact %s: %w", id, err)
		}
		wf = &memFile{Path: rel, Content: tpl}
	}
	wdoc, err := layout.Parse(rel, wf.Content)
	if err != nil {
		pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: err.Error()})
		return nil
	}
	var entries []*wisdomEntry
	cited := map[string]bool{}            // absorbed: deleted once no longer evolving
	activeIn := map[string]*wisdomEntry{} // cited while still evolving
	for _, e := range wdoc.Entries {
		if e.Heading == "" {
			continue
		}
		we := parseWisdomEntry(e)
		entries = append(entries, we)
		for _, s := range we.Sources {
			if name, ok := strings.CutSuffix(s, activeMark); ok {
				activeIn[name] = we
			} else {
				cited[s] = true
			}
		}
	}
	wantType := set(pl.o.WisdomTypes)
	var paths []string
	for p := range pl.overlay {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var mems []*memory
	u := Unit{ID: id, Kind: KindWisdom, Teammate: pl.name}
	for _, p := range paths {
		mf := pl.overlay[p]
		fn := strings.TrimPrefix(p, pl.name+"/memory/")
		f := layout.Classify(pl.name, "memory", fn)
		if f.Kind != layout.KindTyped || f.NameErr != "" || !wantType[f.Type] {
			continue
		}
		d, err := layout.Parse(p, mf.Content)
		if err != nil {
			continue
		}
		m := &memory{mf: mf, name: fn, body: strings.TrimSpace(string(d.Body))}
		m.text = d.Get("name") + "\n" + d.Get("description") + "\n" + rule(m.body)
		st := strings.ToLower(d.Get("status"))
		m.evol = mf.Fresh || st == "active" || st == "evolving" ||
			pl.now.Sub(mf.ModTime) < time.Duration(pl.o.EvolvingDays)*24*time.Hour
		switch we := activeIn[fn]; {
		case cited[fn]:
			if !m.evol {
				u.Deletes = append(u.Deletes, Delete{Path: p, SHA: mf.Last})
			}
		case we != nil && m.evol:
		case we != nil:
			// It has settled: absorb it into the entry it already joined.
			we.absorb(m, m.name, &u)
		default:
			mems = append(mems, m)
		}
	}
	sim := pl.o.Similarity
	// Memories close to an existing entry reinforce it.
	var free []*memory
	for _, m := range mems {
		var best *wisdomEntry
		bs := 0.0
		for _, we := range entries {
			if s := sim.Similarity(m.text, we.Title+"\n"+we.Text); s > bs {
				best, bs = we, s
			}
		}
		if best != nil && bs >= pl.o.Threshold {
			best.absorb(m, m.name, &u)
			continue
		}
		free = append(free, m)
	}
	// The rest cluster around seeds, in file-name order.
	used := map[*memory]bool{}
	for i, seed := range free {
		if used[seed] {
			continue
		}
		cl := []*memory{seed}
		for _, m := range free[i+1:] {
			if !used[m] && sim.Similarity(seed.text, m.text) >= pl.o.Threshold {
				cl = append(cl, m)
			}
		}
		if len(cl) < pl.o.MinCluster {
			continue
		}
		we := &wisdomEntry{}
		for _, m := range cl {
			used[m] = true
			label := m.name
			if d, err := layout.Parse(m.mf.Path, m.mf.Content); err == nil && d.Get("name") != "" {
				label = d.Get("name")
			}
			we.absorb(m, label, &u)
		}
		entries = append(entries, we)
	}
	// Write the entries that changed; hand-written text stays as it is.
	lines := strings.Split(string(wdoc.Body), "\n")
	var tail []string
	changed := false
	for _, we := range entries {
		if !we.changed {
			continue
		}
		changed = true
		req := Request{Kind: KindWisdom, Teammate: pl.name, Unit: we.Title, Sources: we.added}
		if we.Start > 0 {
			req.Existing = "## " + we.Title + "\n\n" + we.Text + "\n"
		}
		out, err := pl.summarize(req)
		if err != nil {
			pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: err.Error()})
			return nil
		}
		title, text, ok := splitEntry(out)
		if !ok {
			pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: "wisdom entry has no \"## \" title"})
			return nil
		}
		we.Title, we.Text = title, text
		r := strings.TrimRight(we.render(), "\n")
		if we.Start == 0 {
			tail = append(tail, r)
			continue
		}
		a, b := we.Start-wdoc.BodyLine, we.End-wdoc.BodyLine
		lines[a] = r
		for k := a + 1; k <= b; k++ {
			lines[k] = "\x00"
		}
	}
	var keep []string
	for _, l := range lines {
		if l != "\x00" {
			keep = append(keep, l)
		}
	}
	body := strings.TrimRight(strings.Join(keep, "\n"), "\n") + "\n"
	for _, t := range tail {
		body += "\n" + t + "\n"
	}
	wdoc.Body = []byte(body)
	content := wdoc.Bytes()
	if changed && string(content) != string(wf.Content) {
		u.Writes = append(u.Writes, Write{Path: rel, Before: wf.Last, After: sum(content), Content: string(content)})
		wf.Content, wf.Last = content, sum(content)
	}
	if len(u.Writes)+len(u.Deletes) > 0 {
		pl.p.Units = append(pl.p.Units, u)
	}
	pl.propose(entries, string(content))
	return nil
}

// propose suggests merging the least-reinforced entries while WISDOM.md is
// over its token budget. Nothing is truncated.
func (pl *planner) propose(entries []*wisdomEntry, content string) {
	over := Tokens(content) - pl.o.WisdomBudget
	if over <= 0 || len(entries) < 2 {
		return
	}
	order := append([]*wisdomEntry(nil), entries...)
	sort.SliceStable(order, func(i, j int) bool { return len(order[i].Sources) < len(order[j].Sources) })
	done := map[*wisdomEntry]bool{}
	for _, we := range order {
		if over <= 0 {
			break
		}
		if done[we] {
			continue
		}
		var best *wisdomEntry
		bs := -1.0
		for _, o := range entries {
			if o == we || done[o] {
				continue
			}
			if s := pl.o.Similarity.Similarity(we.Title+" "+we.Text, o.Title+" "+o.Text); s > bs {
				best, bs = o, s
			}
		}
		if best == nil {
			break
		}
		done[we], done[best] = true, true
		pl.p.Proposals = append(pl.p.Proposals, Proposal{
			Teammate: pl.name,
			Entries:  []string{we.Title, best.Title},
			Reason:   fmt.Sprintf("WISDOM.md is about %d tokens, over its budget of %d; %q is reinforced by %d memories", Tokens(content), pl.o.WisdomBudget, we.Title, len(we.Sources)),
		})
		over -= Tokens(we.render())
	}
}
