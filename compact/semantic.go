package compact

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/internal/lazyregexp"
	"github.com/tmemhq/tmem/internal/secrets"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/templates"
)

// A WISDOM.md entry ends in a line that cites its sources, each with the
// hash of the content the entry was distilled from and where it lives now
// (relative to the memory folder), and, when tmem wrote the entry's text,
// the hash of that text:
//
//	Sources: archive/typed/feedback_no_mocks.md sha256:0123456789ab, feedback_real_api.md sha256:89abcdef0123 (active) <!-- tmem:text sha256:fedcba987654 -->
//
// A cited memory that changed since is distilled again before it is
// absorbed; text a person edited (its hash no longer matches) is never
// rewritten, only its sources line.

// citation is one item of a Sources line.
type citation struct {
	Path   string // relative to the memory folder
	SHA    string // "sha256:" and 12 hex digits; "" in lines written before hashes
	Active bool   // still evolving: cited, not absorbed
}

// archived reports whether the cited memory has moved to the archive.
func (c citation) archived() bool { return strings.HasPrefix(c.Path, layout.ArchiveDir+"/") }

// file is the cited memory's own file name.
func (c citation) file() string {
	base := path.Base(c.Path)
	if c.archived() {
		if m := hashSuffix().FindStringSubmatchIndex(base); m != nil {
			base = base[:m[0]] + ".md"
		}
	}
	return base
}

var hashSuffix = lazyregexp.New(`\.[0-9a-f]{8}\.md$`)

func (c citation) String() string {
	s := c.Path
	if c.SHA != "" {
		s += " " + c.SHA
	}
	if c.Active {
		s += activeMark
	}
	return s
}

const activeMark = " (active)"

var (
	sourcesLine = lazyregexp.New(`(?m)^Sources:[ \t]*(.*?)[ \t]*$`)
	textMarker  = lazyregexp.New(`\s*<!-- tmem:text (sha256:[0-9a-f]{12}) -->$`)
)

// wisdomEntry is one "##" entry of WISDOM.md.
type wisdomEntry struct {
	Title string
	Text  string // without the Sources line
	Cites []citation
	Owned bool // tmem wrote the text and nobody has changed it since
	Start int  // body lines (1-based, inclusive); 0 for a new entry
	End   int

	changed bool // its Sources line changes
	redo    bool // its text is distilled again from its sources
}

func parseWisdomEntry(e layout.Entry) *wisdomEntry {
	we := &wisdomEntry{Title: e.Heading, Text: e.Text, Start: e.Start, End: e.End}
	m := sourcesLine().FindStringSubmatchIndex(e.Text)
	if m == nil {
		return we
	}
	list := e.Text[m[2]:m[3]]
	if mk := textMarker().FindStringSubmatchIndex(list); mk != nil {
		hash := list[mk[2]:mk[3]]
		list = list[:mk[0]]
		we.Text = strings.TrimSpace(e.Text[:m[0]] + e.Text[m[1]:])
		we.Owned = hash == textHash(we.Title, we.Text)
	}
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			we.Cites = append(we.Cites, parseCitation(s))
		}
	}
	we.Text = strings.TrimSpace(e.Text[:m[0]] + e.Text[m[1]:])
	return we
}

func parseCitation(s string) citation {
	c := citation{}
	s, c.Active = strings.CutSuffix(s, activeMark)
	f := strings.Fields(s)
	if len(f) > 0 {
		c.Path = f[0]
	}
	if len(f) > 1 && strings.HasPrefix(f[1], "sha256:") {
		c.SHA = f[1]
	}
	return c
}

// textHash identifies an entry's text as tmem wrote it.
func textHash(title, text string) string {
	return shortSum(sum([]byte(oneLine(title) + "\n" + oneLine(text))))
}

func (we *wisdomEntry) render() string {
	var b strings.Builder
	b.WriteString("## " + we.Title + "\n\n" + strings.TrimSpace(we.Text) + "\n")
	if len(we.Cites) > 0 {
		items := make([]string, len(we.Cites))
		for i, c := range we.Cites {
			items[i] = c.String()
		}
		b.WriteString("\nSources: " + strings.Join(items, ", "))
		if we.Owned {
			b.WriteString(" <!-- tmem:text " + textHash(we.Title, we.Text) + " -->")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// cite adds or updates the citation of a memory file.
func (we *wisdomEntry) cite(c citation) {
	we.changed = true
	for i := range we.Cites {
		if we.Cites[i].file() == c.file() {
			we.Cites[i] = c
			return
		}
	}
	we.Cites = append(we.Cites, c)
}

// memory is a typed memory considered for wisdom.
type memory struct {
	mf   *memFile
	file string // its file name, e.g. feedback_no_mocks.md
	name string // its frontmatter name, or the file name
	text string // name, description and rule, for similarity
	body string
	evol bool
}

// memoryBody is a typed memory's text as the semantic pass reads it: the
// stamps tmem writes above what it remembers (see layout.Stamp) are read
// past, so that they are neither taken for its rule nor compared.
func memoryBody(d *layout.Doc) string {
	return strings.TrimSpace(string(d.ReadableBody()))
}

// rule is a memory body's first paragraph: the rule or fact it states,
// without the Why and How-to-apply detail that would dilute similarity.
func rule(body string) string {
	p, _, _ := strings.Cut(strings.TrimSpace(body), "\n\n")
	return p
}

// Tokens estimates the tokens of s as its length over four.
func Tokens(s string) int { return (len(s) + 3) / 4 }

// wisdomDoc is WISDOM.md as planned, parsed.
type wisdomDoc struct {
	rel     string
	mf      *memFile
	doc     *layout.Doc
	entries []*wisdomEntry
}

func (pl *planner) readWisdom() (*wisdomDoc, error) {
	rel := pl.name + "/WISDOM.md"
	mf, err := pl.file(rel)
	if err != nil {
		return nil, err
	}
	if err := unresolved(rel, mf.Content); err != nil {
		return nil, err
	}
	content := mf.Content
	if !mf.Exists {
		if content, err = templates.Read(pl.ws.Templates(), templates.Wisdom); err != nil {
			return nil, err
		}
	}
	d, err := layout.Parse(rel, content)
	if err != nil {
		return nil, err
	}
	w := &wisdomDoc{rel: rel, mf: mf, doc: d}
	for _, e := range d.Entries {
		if e.Heading != "" {
			w.entries = append(w.entries, parseWisdomEntry(e))
		}
	}
	return w, nil
}

// memories lists the typed memories of the wisdom types, as planned.
func (pl *planner) memories() []*memory {
	want := map[string]bool{}
	for _, t := range pl.o.WisdomTypes {
		want[t] = true
	}
	var out []*memory
	for _, p := range pl.sortedOverlay() {
		mf := pl.overlay[p]
		fn := pl.memRel(p)
		f := layout.Classify(pl.name, "memory", fn)
		if !mf.Exists || strings.Contains(fn, "/") || f.Kind != layout.KindTyped || f.NameErr != "" || !want[f.Type] {
			continue
		}
		if unresolved(p, mf.Content) != nil {
			continue // reported when read; cited as it is until resolved
		}
		d, err := layout.Parse(p, mf.Content)
		if err != nil {
			pl.skipOnce(p, fmt.Errorf("%w; left out of WISDOM.md until it parses", err))
			continue
		}
		m := &memory{mf: mf, file: fn, name: firstOf(oneLine(d.Get("name")), fn), body: memoryBody(d)}
		m.text = d.Get("name") + "\n" + d.Get("description") + "\n" + rule(m.body)
		st := strings.ToLower(d.Get("status"))
		m.evol = mf.Fresh || st == "active" || st == "evolving" ||
			pl.lastChange(fn, mf, d).After(pl.now.AddDate(0, 0, -pl.o.EvolvingDays))
		out = append(out, m)
	}
	return out
}

func (pl *planner) sortedOverlay() []string {
	var out []string
	for p := range pl.overlay {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// semantic plans the WISDOM.md unit: typed memories that say the same
// thing become (or reinforce) one entry; absorbed memories that are no
// longer evolving are archived and deleted; a cited memory that changed is
// distilled again first.
func (pl *planner) semantic() error {
	id := pl.name + "/wisdom"
	if pl.o.stopped() {
		return ErrStopped
	}
	if !pl.o.plans(id) {
		return nil
	}
	w, err := pl.readWisdom()
	if err != nil {
		pl.fail(id, err)
		return nil
	}
	ub := pl.newUnit(id, KindWisdom)
	free, err := pl.settleCited(ub, w)
	if err == nil {
		free = pl.reinforce(w, free)
		err = pl.cluster(w, free)
	}
	if err == nil {
		err = pl.absorbSettled(ub, w)
	}
	if err == nil {
		err = pl.writeWisdom(ub, w)
	}
	if err != nil {
		ub.abandon()
		pl.fail(id, err)
		return nil
	}
	ub.done()
	pl.suggestMerges(w)
	return nil
}

// settleCited brings every citation up to date with the memory it names
// and returns the memories no entry cites.
func (pl *planner) settleCited(ub *unit, w *wisdomDoc) ([]*memory, error) {
	type ref struct {
		we *wisdomEntry
		c  citation
	}
	cited := map[string]ref{}
	for _, we := range w.entries {
		for _, c := range we.Cites {
			cited[c.file()] = ref{we, c}
		}
	}
	var free []*memory
	for _, m := range pl.memories() {
		r, ok := cited[m.file]
		switch {
		case !ok:
			free = append(free, m)
		case r.c.archived() && r.c.SHA == shortSum(m.mf.Last):
			// Archived by a run that stopped before deleting it.
			if _, err := ub.archiveTyped(m.mf.Path, m.mf.Content, m.mf.Last); err != nil {
				return nil, err
			}
		case r.c.archived():
			free = append(free, m) // a new memory under an absorbed one's name
		default:
			nc := citation{Path: m.file, SHA: shortSum(m.mf.Last), Active: true}
			if r.c.SHA != "" && r.c.SHA != nc.SHA && r.we.Owned {
				r.we.redo = true // changed since it was cited: distil again
			}
			if r.c != nc {
				r.we.cite(nc)
			}
		}
	}
	return free, nil
}

// reinforce adds memories close to an existing entry to its sources and
// returns the others.
func (pl *planner) reinforce(w *wisdomDoc, mems []*memory) []*memory {
	var free []*memory
	for _, m := range mems {
		var best *wisdomEntry
		bs := 0.0
		for _, we := range w.entries {
			if s := pl.o.Similarity.Similarity(m.text, we.Title+"\n"+we.Text); s > bs {
				best, bs = we, s
			}
		}
		if best != nil && bs >= pl.o.Threshold {
			best.cite(citation{Path: m.file, SHA: shortSum(m.mf.Last), Active: true})
			continue
		}
		free = append(free, m)
	}
	return free
}

// cluster makes a new entry of every group of at least MinCluster free
// memories that say the same thing, seeded in file-name order.
func (pl *planner) cluster(w *wisdomDoc, free []*memory) error {
	used := map[*memory]bool{}
	for i, seed := range free {
		if used[seed] {
			continue
		}
		cl := []*memory{seed}
		for _, m := range free[i+1:] {
			if !used[m] && pl.o.Similarity.Similarity(seed.text, m.text) >= pl.o.Threshold {
				cl = append(cl, m)
			}
		}
		if len(cl) < pl.o.MinCluster {
			continue
		}
		we := &wisdomEntry{redo: true, Owned: true}
		for _, m := range cl {
			used[m] = true
			we.cite(citation{Path: m.file, SHA: shortSum(m.mf.Last), Active: true})
		}
		w.entries = append(w.entries, we)
	}
	return nil
}

// absorbSettled archives and deletes every cited memory that is no longer
// evolving (after its entry's text is distilled from it, if it changed),
// and cites it where it now lives.
func (pl *planner) absorbSettled(ub *unit, w *wisdomDoc) error {
	byFile := map[string]*memory{}
	for _, m := range pl.memories() {
		byFile[m.file] = m
	}
	for _, we := range w.entries {
		if we.redo {
			if err := pl.distil(we, byFile); err != nil {
				return err
			}
		}
		for i, c := range we.Cites {
			m := byFile[c.file()]
			if m == nil && c.Active && !c.archived() {
				// removed or renamed by a person: no longer evolving
				// in memory/, cited by the name it had
				we.Cites[i].Active, we.changed = false, true
			}
			if c.archived() || m == nil {
				continue
			}
			if m.evol {
				we.Cites[i].Active = true
				continue
			}
			where, err := ub.archiveTyped(m.mf.Path, m.mf.Content, m.mf.Last)
			if err != nil {
				return err
			}
			if where == "" {
				where = m.file // archive off: cited by the name it had
			}
			we.Cites[i] = citation{Path: where, SHA: shortSum(m.mf.Last)}
			we.changed = true
		}
	}
	return nil
}

// distil writes an entry's text again from all its sources.
func (pl *planner) distil(we *wisdomEntry, byFile map[string]*memory) error {
	req := Request{Kind: KindWisdom, Teammate: pl.name, Unit: we.Title}
	if we.Start > 0 {
		req.Existing = "## " + we.Title + "\n\n" + we.Text + "\n"
	}
	for _, c := range we.Cites {
		src, ok, err := pl.citedSource(c, byFile)
		if err != nil {
			return err
		}
		if ok {
			req.Sources = append(req.Sources, src)
		}
	}
	if len(req.Sources) == 0 {
		return nil
	}
	out, err := pl.summarize(req)
	if err != nil {
		return err
	}
	title, text, ok := splitEntry(out)
	if !ok {
		return fmt.Errorf("wisdom entry has no \"## \" title")
	}
	we.Title, we.Text, we.Owned, we.changed = title, text, true, true
	return nil
}

// citedSource reads a cited memory as a summary source: the file itself,
// or its archived copy.
func (pl *planner) citedSource(c citation, byFile map[string]*memory) (Source, bool, error) {
	if m := byFile[c.file()]; m != nil && !c.archived() {
		return Source{Path: m.mf.Path, Label: m.name, Text: m.body, Where: m.file}, true, nil
	}
	rel := pl.name + "/memory/" + c.Path
	mf, err := pl.file(rel)
	if err != nil || !mf.Exists {
		return Source{}, false, err
	}
	if err := unresolved(rel, mf.Content); err != nil {
		return Source{}, false, err
	}
	d, err := layout.Parse(rel, mf.Content)
	if err != nil {
		return Source{}, false, nil
	}
	return Source{Path: rel, Label: firstOf(oneLine(d.Get("name")), c.file()), Text: memoryBody(d), Where: c.Path}, true, nil
}

// writeWisdom plans WISDOM.md with the entries that changed rendered
// again in place (new ones at the end); hand-written text stays as it is.
func (pl *planner) writeWisdom(ub *unit, w *wisdomDoc) error {
	lines := strings.Split(string(w.doc.Body), "\n")
	var tail []string
	changed := false
	for _, we := range w.entries {
		if !we.changed && !we.redo {
			continue
		}
		changed = true
		r := strings.TrimRight(we.render(), "\n")
		if we.Start == 0 {
			tail = append(tail, r)
			continue
		}
		a, b := we.Start-w.doc.BodyLine, we.End-w.doc.BodyLine
		lines[a] = r
		for k := a + 1; k <= b; k++ {
			lines[k] = "\x00"
		}
	}
	if !changed {
		return nil
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
	w.doc.Body = []byte(body)
	return ub.write(w.rel, w.doc.Bytes())
}

// suggestMerges suggests merging the least-reinforced entries while
// WISDOM.md is over its token budget, each with the entry most like it
// when that one is alike enough to cluster with it (Options.Threshold).
// An entry like no other is named alone, to shorten or drop by hand: a
// pair of unrelated entries is no merge. Nothing is truncated.
func (pl *planner) suggestMerges(w *wisdomDoc) {
	tokens := Tokens(string(pl.overlay[w.rel].Content))
	over := tokens - pl.o.WisdomBudget
	if over <= 0 || len(w.entries) == 0 {
		return
	}
	order := append([]*wisdomEntry(nil), w.entries...)
	sort.SliceStable(order, func(i, j int) bool { return len(order[i].Cites) < len(order[j].Cites) })
	done := map[*wisdomEntry]bool{}
	var alone *wisdomEntry
	for _, we := range order {
		if over <= 0 {
			return
		}
		if done[we] {
			continue
		}
		best := pl.likest(we, w.entries, done)
		if best == nil {
			if alone == nil && pl.likest(we, w.entries, nil) == nil {
				alone = we // like no other; not one whose like is paired above
			}
			continue
		}
		done[we], done[best] = true, true
		pl.p.Merges = append(pl.p.Merges, pl.mergeSuggestion(tokens, we, best))
		over -= Tokens(we.render())
	}
	if over > 0 && alone != nil {
		pl.p.Merges = append(pl.p.Merges, pl.mergeSuggestion(tokens, alone, nil))
	}
}

// likest returns the entry of entries most like we, not we and not done
// (done may be nil), when it is alike enough to cluster with we; nil when
// none is.
func (pl *planner) likest(we *wisdomEntry, entries []*wisdomEntry, done map[*wisdomEntry]bool) *wisdomEntry {
	var best *wisdomEntry
	bs := 0.0
	for _, o := range entries {
		if o == we || done[o] {
			continue
		}
		s := pl.o.Similarity.Similarity(we.Title+" "+we.Text, o.Title+" "+o.Text)
		if s >= pl.o.Threshold && (best == nil || s > bs) { // ties: the first
			best, bs = o, s
		}
	}
	return best
}

// mergeSuggestion suggests merging we with other, or shortening we by
// hand when other is nil. Titles are redacted: the plan goes to stdout and
// MCP clients, which never see a secret a person wrote into WISDOM.md.
func (pl *planner) mergeSuggestion(tokens int, we, other *wisdomEntry) MergeSuggestion {
	a, _ := secrets.Redact(we.Title)
	over := fmt.Sprintf("WISDOM.md is about %d tokens, over its budget of %d", tokens, pl.o.WisdomBudget)
	if other == nil {
		return MergeSuggestion{Teammate: pl.name, Kind: "shorten", Entries: []string{a},
			Reason: fmt.Sprintf("%s; no entry is alike enough to merge with %q, reinforced by %d memories: shorten or remove it by hand", over, a, len(we.Cites))}
	}
	b, _ := secrets.Redact(other.Title)
	return MergeSuggestion{Teammate: pl.name, Kind: "merge", Entries: []string{a, b},
		Reason: fmt.Sprintf("%s; %q is reinforced by %d memories", over, a, len(we.Cites))}
}
