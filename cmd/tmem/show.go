package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/internal/secrets"
	"github.com/tmemhq/tmem/layout"
)

// showDoc is `tmem show --json`.
type showDoc struct {
	Path        string                 `json:"path"`
	Frontmatter map[string]interface{} `json:"frontmatter"`
	Title       string                 `json:"title"`
	Entries     []layout.Entry         `json:"entries"`
	Redacted    []string               `json:"redacted,omitempty"` // rules of the secrets shown as [REDACTED:kind]
}

func newShowCmd(f *factory) *cobra.Command {
	var raw bool
	cmd := &cobra.Command{
		Use:   "show PATH",
		Short: "Print a memory file (with --json: frontmatter and entries)",
		Long: `Print a memory file. PATH is relative to the workspace root (as tmem list
prints it) or to the current folder. With --json, print its parsed
frontmatter, title and entries with their line ranges.

A secret in the file (a token, a key, a password) is shown as
[REDACTED:kind], as tmem context, tmem recall and memory_get show it, and
stderr names its line; lines keep their numbers. --raw prints the file as
it is.`,
		Example: `  tmem show beacon/memory/2026-03-14.md
  tmem show --json beacon/memory/feedback_no_mocks.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.show(args[0], raw)
		},
	}
	cmd.Flags().BoolVar(&raw, "raw", false, "print secrets as they are written, not as [REDACTED:kind]")
	return cmd
}

// show prints the file at p (see layout's RelPath), or under --json its
// frontmatter, title and entries; secrets redacted unless raw.
func (f *factory) show(p string, raw bool) error {
	ws, err := f.Workspace()
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "" // paths relative to the root still work
	}
	rel, err := ws.RelPath(p, wd)
	if err != nil {
		return usageError{err}
	}
	// Both ways of showing a file hold it to the limit for memory
	// files: a larger one is refused on its size, unread.
	src, err := ws.ReadFile(rel, layout.MaxFileSize)
	if err != nil {
		return layout.ReadError(rel, err)
	}
	if !f.json {
		return f.printText(rel, src, raw)
	}
	return f.printDoc(rel, src, raw)
}

// printText prints the file rel, whose bytes are src, as it is, secrets
// redacted in place unless raw (stderr names their lines).
func (f *factory) printText(rel string, src []byte, raw bool) error {
	if err := layout.CheckText(rel, src); err != nil {
		return err
	}
	text, found := string(src), []secrets.Finding(nil)
	if !raw {
		text, found = secrets.RedactLines(text)
	}
	if _, err := io.WriteString(f.stdout, text); err != nil {
		return err
	}
	f.warnShownRedacted(rel, found)
	return nil
}

// warnShownRedacted names on stderr the lines of rel whose secrets were
// shown as [REDACTED:kind].
func (f *factory) warnShownRedacted(rel string, found []secrets.Finding) {
	if len(found) == 0 {
		return
	}
	var at []string
	for _, s := range found {
		at = append(at, fmt.Sprintf("%d (%s)", s.Line, s.Rule))
	}
	f.warnf("%s: %d secret(s) shown as [REDACTED:kind], at line %s; --raw prints them", rel, len(found), strings.Join(at, ", "))
}

// printDoc prints the file rel, whose bytes are src, parsed, as JSON;
// secrets redacted unless raw.
func (f *factory) printDoc(rel string, src []byte, raw bool) error {
	d, err := layout.Parse(rel, src)
	if err != nil {
		return err
	}
	out := showDoc{Path: rel, Frontmatter: map[string]interface{}{}, Title: d.Title, Entries: d.Entries}
	for _, k := range d.Keys() {
		out.Frontmatter[k] = jsonable(d.Value(k))
	}
	if out.Entries == nil {
		out.Entries = []layout.Entry{}
	}
	if !raw {
		out.redact(string(src))
	}
	return f.printJSON(out)
}

// redact shows every secret of d, parsed from src, as [REDACTED:kind],
// entries' lines kept, and lists the rules found in d.Redacted.
func (d *showDoc) redact(src string) {
	rules := map[string]bool{}
	note := func(found []secrets.Finding) {
		for _, f := range found {
			rules[f.Rule] = true
		}
	}
	var found []secrets.Finding
	d.Title, found = secrets.Redact(d.Title)
	note(found)
	for i := range d.Entries {
		e := &d.Entries[i]
		e.Heading, found = secrets.Redact(e.Heading)
		note(found)
		e.Text, found = secrets.RedactLines(e.Text)
		note(found)
	}
	fm, fmRules := secrets.RedactValue(d.Frontmatter, src)
	d.Frontmatter = fm.(map[string]interface{})
	for _, r := range fmRules {
		rules[r] = true
	}
	for r := range rules {
		d.Redacted = append(d.Redacted, r)
	}
	sort.Strings(d.Redacted)
}

// jsonable converts YAML values (maps with interface keys) for encoding/json.
func jsonable(v interface{}) interface{} {
	switch x := v.(type) {
	case map[interface{}]interface{}:
		m := map[string]interface{}{}
		for k, val := range x {
			m[fmt.Sprint(k)] = jsonable(val)
		}
		return m
	case map[string]interface{}:
		m := make(map[string]interface{}, len(x))
		for k, val := range x {
			m[k] = jsonable(val)
		}
		return m
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, val := range x {
			out[i] = jsonable(val)
		}
		return out
	}
	return v
}
