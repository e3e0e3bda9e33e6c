package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout"
)

// showDoc is `tmem show --json`.
type showDoc struct {
	Path        string                 `json:"path"`
	Frontmatter map[string]interface{} `json:"frontmatter"`
	Title       string                 `json:"title"`
	Entries     []layout.Entry         `json:"entries"`
}

func newShowCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show PATH",
		Short: "Print a memory file (with --json: frontmatter and entries)",
		Long: `Print a memory file. PATH is relative to the workspace root (as tmem list
prints it) or to the current folder. With --json, print its parsed
frontmatter, title and entries with their line ranges.`,
		Example: `  tmem show beacon/memory/2026-03-14.md
  tmem show --json beacon/memory/feedback_no_mocks.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.show(args[0])
		},
	}
	return cmd
}

// show prints the file at p (see layout's RelPath), or under --json its
// frontmatter, title and entries.
func (f *factory) show(p string) error {
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
		if err := layout.CheckText(rel, src); err != nil {
			return err
		}
		_, err = f.stdout.Write(src)
		return err
	}
	return f.printDoc(rel, src)
}

// printDoc prints the file rel, whose bytes are src, parsed, as JSON.
func (f *factory) printDoc(rel string, src []byte) error {
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
	return f.printJSON(out)
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
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, val := range x {
			out[i] = jsonable(val)
		}
		return out
	}
	return v
}
