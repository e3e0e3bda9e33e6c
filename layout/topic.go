package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// A typed memory renamed by hand may carry its topic in a form Slug never
// gives (feedback_No-Mocks.md). tmem never renames such a file: a write
// finds it by its topic in slug form, and doctor names the fix.

// typedTarget is the file a typed memory of typ whose topic slugs to slug
// is written to: TypedPath when that file is there, or when no typed
// memory of typ has a topic that slugs to slug; else the one that has.
// Several such files and none under TypedPath is an error naming them,
// as picking one would be a guess.
func (w *Workspace) typedTarget(name, typ, slug string) (string, error) {
	rel := TypedPath(name, typ, slug)
	if _, err := w.Lstat(rel); !errors.Is(err, fs.ErrNotExist) {
		return rel, nil // there, or unusable: the write says why
	}
	same, err := w.sameTopic(name, typ, slug)
	if err != nil {
		return "", err
	}
	switch len(same) {
	case 0:
		return rel, nil
	case 1:
		return same[0], nil
	}
	return "", fmt.Errorf("%s: nothing written: %s all have this topic once put in slug form, and tmem does not guess which one to write; "+
		"merge them into %s", rel, strings.Join(same, ", "), rel)
}

// sameTopic lists the teammate's typed memories of typ, by path, whose
// topic slugs to slug (TypedPath itself is not among them: it is not there).
func (w *Workspace) sameTopic(name, typ, slug string) ([]string, error) {
	dir := name + "/memory"
	ents, err := w.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		f := Classify(name, "memory", e.Name())
		if f.Kind != KindTyped || f.Type != typ || strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		if got, _, ok := topicSlug(e.Name()); ok && got == slug {
			if _, err := w.EntryCheck(dir, e); err == nil {
				out = append(out, f.Path)
			}
		}
	}
	return out, nil
}

// topicSlug is the slug form of the topic in a typed memory's file name
// (<type>_<topic>.md) and whether the name holds it so already (composed
// or not: a file system may give names decomposed); ok is false when the
// name has no topic Slug takes.
func topicSlug(fn string) (slug string, inForm, ok bool) {
	_, topic, found := strings.Cut(strings.TrimSuffix(fn, ".md"), "_")
	if !found {
		return "", false, false
	}
	slug, err := Slug(topic)
	if err != nil {
		return "", false, false
	}
	return slug, slug == norm.NFC.String(topic), true
}

// topicFindings warns about a typed memory whose file name holds its
// topic in a form Slug never gives, with the name to rename it to.
func (w *Workspace) topicFindings(f File) []Finding {
	fn := f.Path[strings.LastIndex(f.Path, "/")+1:]
	slug, inForm, ok := topicSlug(fn)
	if !ok || inForm || f.Type == "" {
		return nil
	}
	want := f.Type + "_" + slug + ".md"
	msg := fmt.Sprintf("the topic in the file name is not in slug form: rename the file %s (meanwhile tmem remember "+
		"finds it by its topic, as long as no other file's topic reads the same once slugged)", want)
	if _, err := w.Lstat(TypedPath(f.Teammate, f.Type, slug)); !errors.Is(err, fs.ErrNotExist) {
		msg = fmt.Sprintf("the topic in the file name is not in slug form, and %s, the file tmem remember writes for "+
			"this topic, exists too: merge this file into it", want)
	}
	return []Finding{{Path: f.Path, Severity: SevWarning, Message: msg}}
}
