package compact

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// extractType says which typed memory a marked line becomes: facts are
// project knowledge, lessons are feedback; decisions stay in the summary.
func extractType(heading string, l markedLine) string {
	if !l.Marked {
		return ""
	}
	switch l.Mark {
	case "fact":
		return "project"
	case "lesson", "learned":
		return "feedback"
	case "heading":
		for _, w := range words(heading) {
			switch w {
			case "fact":
				return "project"
			case "lesson", "learn", "learning":
				return "feedback"
			}
		}
	}
	return ""
}

// extract plans typed-memory writes for the durable facts and lessons in
// ds. A line already present in a typed memory is skipped; a line similar
// to one (Threshold) is added to it; otherwise a new memory is created.
// Writes chain through the overlay, so later units see earlier ones.
func (pl *planner) extract(ds []dayFile) ([]Write, error) {
	touched := map[string]string{} // path → hash before this unit
	var order []string
	for _, d := range ds {
		doc, err := layout.Parse(d.Path, d.Body)
		if err != nil {
			return nil, fmt.Errorf("compact %s: %w", d.Path, err)
		}
		src := pl.memRel(d.Path)
		for _, en := range doc.Entries {
			head := en.Heading
			for _, l := range scanLines(en.Heading, en.Text) {
				if strings.HasPrefix(l.Text, "#") {
					head = l.Text
					continue
				}
				typ := extractType(head, l)
				if typ == "" {
					continue
				}
				line := stripListMarker(l.Text)
				path, err := pl.addFact(typ, line, src)
				if err != nil {
					return nil, err
				}
				if path == "" {
					continue
				}
				if _, ok := touched[path]; !ok {
					touched[path] = pl.overlay[path].Last
					order = append(order, path)
				}
			}
		}
	}
	sort.Strings(order)
	var out []Write
	for _, p := range order {
		mf := pl.overlay[p]
		out = append(out, Write{Path: p, Before: touched[p], After: sum(mf.Content), Content: string(mf.Content)})
		mf.Last = sum(mf.Content)
	}
	return out, nil
}

// addFact puts line into a typed memory of type typ in the overlay and
// returns its path, or "" when a memory already holds it.
func (pl *planner) addFact(typ, line, src string) (string, error) {
	var best *memFile
	bestScore := 0.0
	var paths []string
	for p := range pl.overlay {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		mf := pl.overlay[p]
		f := layout.Classify(pl.name, "memory", strings.TrimPrefix(p, pl.name+"/memory/"))
		if f.Kind != layout.KindTyped || f.Type != typ {
			continue
		}
		if strings.Contains(string(mf.Content), line) {
			return "", nil
		}
		d, err := layout.Parse(p, mf.Content)
		if err != nil {
			continue
		}
		if s := pl.o.Similarity.Similarity(line, d.Get("name")+" "+string(d.Body)); s > bestScore {
			best, bestScore = mf, s
		}
	}
	if best != nil && bestScore >= pl.o.Threshold {
		return best.Path, pl.appendFact(best, line, src)
	}
	topic := factTopic(line)
	slug, err := layout.Slug(topic)
	if err != nil {
		slug = "note"
	}
	path := layout.TypedPath(pl.name, typ, slug)
	if mf := pl.overlay[path]; mf != nil {
		return path, pl.appendFact(mf, line, src)
	}
	d := &layout.Doc{Path: path}
	d.Set("name", clip(factText(line), 60))
	d.Set("description", clip(factText(line), 120))
	d.Set("type", typ)
	d.Set("sources", toIface([]string{src}))
	d.Body = []byte("\n" + line + "\n")
	pl.overlay[path] = &memFile{Path: path, Content: d.Bytes(), Fresh: true}
	return path, nil
}

func (pl *planner) appendFact(mf *memFile, line, src string) error {
	d, err := layout.Parse(mf.Path, mf.Content)
	if err != nil {
		return fmt.Errorf("compact %s: %w", mf.Path, err)
	}
	srcs := appendUnique(readSources(d), src)
	d.Set("sources", toIface(srcs))
	d.Body = []byte(strings.TrimRight(string(d.Body), " \t\r\n") + "\n\n" + line + "\n")
	mf.Content = d.Bytes()
	mf.Fresh = true
	return nil
}

// factText is a marked line without its "Lesson:"-style prefix.
func factText(line string) string {
	s := strings.TrimLeft(line, "*_ ")
	if _, ok := markedPrefix(s); ok {
		if i := strings.Index(s, ":"); i >= 0 {
			s = strings.TrimLeft(s[i+1:], "*_ ")
		}
	}
	return strings.TrimSpace(s)
}

// factTopic names a new typed memory after the line's first content words.
func factTopic(line string) string {
	var ws []string
	for _, w := range strings.FieldsFunc(strings.ToLower(factText(line)), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if stopWords[w] || w == "lesson" || w == "fact" {
			continue
		}
		ws = append(ws, w)
		if len(ws) == 4 {
			break
		}
	}
	return strings.Join(ws, " ")
}
