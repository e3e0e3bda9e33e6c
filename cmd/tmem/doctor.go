package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout"
)

func newDoctorCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check every memory file and report problems",
		Long: `Read every memory file and report, one per line as path:line: severity:
message, frontmatter that does not parse, unknown memory types, misnamed
files (a daily whose title differs from its file name, a weekly for a week
that does not exist), empty files, invalid UTF-8 and oversized files.
Exit 0 when clean, 1 with findings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := f.Workspace()
			if err != nil {
				return err
			}
			findings, err := ws.Check()
			if err != nil {
				return err
			}
			if findings == nil {
				findings = []layout.Finding{}
			}
			if f.json {
				if err := f.printJSON(findings); err != nil {
					return err
				}
			} else {
				for _, fd := range findings {
					fmt.Fprintln(f.stdout, fd.String())
				}
			}
			if len(findings) > 0 {
				return errFindings
			}
			return nil
		},
	}
}
