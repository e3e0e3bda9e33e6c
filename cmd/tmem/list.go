package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout"
)

type listOptions struct {
	teammate string
	kind     string
}

// listItem is one row of `tmem list --json`.
type listItem struct {
	Teammate string `json:"teammate"`
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Type     string `json:"type"`
	Name     string `json:"name"`
	Date     string `json:"date"`
	Bytes    int64  `json:"bytes"`
	Error    string `json:"error,omitempty"`
}

func newListCmd(f *factory) *cobra.Command {
	opts := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list [--teammate NAME] [--kind KIND]",
		Short: "List memory files, one per line",
		Long: `List the workspace's memory files: teammate, kind, path (relative to the
workspace root), type, name and date. KIND is one of soul, goals, wisdom,
daily, typed, weekly, monthly, crossteam. A file that does not parse is still
listed, with its error on stderr.`,
		Example: `  tmem list --teammate beacon --kind typed
  tmem list --json | jq -r '.[].path'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.kind != "" && !validKind(opts.kind) {
				return usageErrorf("--kind %q: want one of %s", opts.kind, kindList())
			}
			ws, err := f.Workspace()
			if err != nil {
				return err
			}
			items, err := listFiles(ws, opts)
			if err != nil {
				return err
			}
			for _, it := range items {
				if it.Error != "" {
					f.warnf("%s", it.Error)
				}
			}
			if f.json {
				return f.printJSON(items)
			}
			tw := tabwriter.NewWriter(f.stdout, 0, 4, 2, ' ', 0)
			for _, it := range items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.Path, it.Kind, dash(it.Type), dash(it.Date), dash(it.Name))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&opts.teammate, "teammate", "", "only this teammate's files")
	cmd.Flags().StringVar(&opts.kind, "kind", "", "only files of this kind")
	return cmd
}

func listFiles(ws *layout.Workspace, opts *listOptions) ([]listItem, error) {
	var files []layout.File
	if opts.teammate == "" {
		if ct, ok := ws.CrossTeam(); ok {
			files = append(files, ct)
		}
		mates, err := ws.Teammates()
		if err != nil {
			return nil, err
		}
		for _, m := range mates {
			fs, err := ws.Files(m.Name)
			if err != nil {
				return nil, err
			}
			files = append(files, fs...)
		}
	} else {
		if _, err := ws.Teammate(opts.teammate); err != nil {
			return nil, err
		}
		fs, err := ws.Files(opts.teammate)
		if err != nil {
			return nil, err
		}
		files = fs
	}
	items := []listItem{}
	for _, fl := range files {
		if opts.kind != "" && string(fl.Kind) != opts.kind {
			continue
		}
		it := listItem{Teammate: fl.Teammate, Kind: string(fl.Kind), Path: fl.Path, Type: fl.Type, Bytes: fl.Size}
		if !fl.Date.IsZero() {
			it.Date = fl.Date.Format(layout.DateLayout)
		}
		if fl.Kind == layout.KindTyped || fl.Kind == layout.KindWeekly || fl.Kind == layout.KindMonthly {
			describe(ws, fl, &it)
		}
		items = append(items, it)
	}
	return items, nil
}

// describe fills name, type and date from the file's frontmatter.
func describe(ws *layout.Workspace, fl layout.File, it *listItem) {
	if fl.Size > layout.MaxFileSize {
		it.Error = (&layout.ParseError{Path: fl.Path, Err: fmt.Errorf("file is over the %d-byte limit; not parsed", layout.MaxFileSize)}).Error()
		return
	}
	src, err := ws.ReadFile(fl.Path, layout.MaxFileSize)
	if err != nil {
		it.Error = err.Error()
		return
	}
	d, err := layout.Parse(fl.Path, src)
	if err != nil {
		it.Error = err.Error()
		return
	}
	it.Name = d.Get("name")
	if t := d.Get("type"); t != "" && fl.Kind == layout.KindTyped {
		it.Type = t
	}
	if it.Date == "" {
		if t := d.Date(); !t.IsZero() {
			it.Date = t.Format(layout.DateLayout)
		}
	}
}

func validKind(k string) bool {
	for _, x := range layout.Kinds {
		if string(x) == k {
			return true
		}
	}
	return false
}

func kindList() string {
	var s []string
	for _, k := range layout.Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
