package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
			ws, err := f.Workspace()
			if err != nil {
				return err
			}
			rel, err := workspacePath(ws, args[0])
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
		},
	}
	return cmd
}

// workspacePath accepts a path relative to the workspace root or to the
// working directory and returns it relative to the root, refusing anything
// outside the workspace.
func workspacePath(ws *layout.Workspace, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("the path is empty: give a file's path, as tmem list prints it")
	}
	if abs, err := filepath.Abs(p); err == nil && !filepath.IsAbs(p) {
		if _, err := os.Stat(abs); err == nil {
			if r, err := filepath.Rel(ws.Root, abs); err == nil && filepath.IsLocal(r) {
				return filepath.ToSlash(r), nil
			}
		}
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(ws.Root, p)
		if err != nil || !filepath.IsLocal(r) {
			return "", fmt.Errorf("path %q is outside the workspace %s", p, ws.Root)
		}
		return filepath.ToSlash(r), nil
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", fmt.Errorf("path %q leaves the workspace", p)
	}
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "./"), nil
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
