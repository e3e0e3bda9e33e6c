package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout"
)

type rememberOptions struct {
	teammate, typ, topic, name, description, mode string
	force, allowSecret                            bool

	writeMode layout.Mode // set by check from --mode and --force
}

func newRememberCmd(f *factory) *cobra.Command {
	opts := &rememberOptions{}
	cmd := &cobra.Command{
		Use:   "remember --teammate NAME --type TYPE --topic TOPIC --name NAME [--description TEXT] [--mode create|append|overwrite] [BODY | -]",
		Short: "Write a typed memory (memory/<type>_<topic>.md)",
		Long: `Write a typed memory with name, description and type frontmatter. TYPE is
user, feedback, project or reference; TOPIC is slugged into the file name
("Deploy pipeline" → deploy_pipeline); a memory renamed by hand whose topic
reads the same once slugged (feedback_No-Mocks.md) is found and written to,
never renamed, when it is the only one. An existing memory is never replaced
silently: --mode append adds the body to it and keeps its name (--name is
needed only when there is none to append to), --mode overwrite (or --force)
replaces its body and name, keeping any other frontmatter fields; either
sets a --description given. A topic,
name, description or body that looks like it holds a secret is refused
unless --allow-secret.`,
		Example: `  tmem remember --teammate beacon --type feedback --topic "no mocks" \
    --name "No mocks in integration tests" \
    --description "Integration tests use real services" - < note.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			body, err := f.readArg(args)
			if err != nil {
				return err
			}
			return f.remember(cmd.Context(), opts, body)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.teammate, "teammate", "", "teammate who remembers")
	fl.StringVar(&opts.typ, "type", "", "user, feedback, project or reference")
	fl.StringVar(&opts.topic, "topic", "", "topic, slugged into the file name")
	fl.StringVar(&opts.name, "name", "", "the memory's name (frontmatter)")
	fl.StringVar(&opts.description, "description", "", "one-line description (frontmatter)")
	fl.StringVar(&opts.mode, "mode", "create", "create, append or overwrite")
	fl.BoolVar(&opts.force, "force", false, "replace an existing memory (same as --mode overwrite)")
	fl.BoolVar(&opts.allowSecret, "allow-secret", false, "write the memory even if it looks like it holds a secret")
	return cmd
}

// check reads the flags: the teammate, type and topic are required, the
// name too but to append, and --force is --mode overwrite.
func (o *rememberOptions) check() error {
	if err := teammateFlag(o.teammate); err != nil {
		return err
	}
	for flag, v := range map[string]string{"--type": o.typ, "--topic": o.topic} {
		if v == "" {
			return usageErrorf("%s is required", flag)
		}
	}
	o.writeMode = layout.Mode(o.mode)
	if o.name == "" && (o.writeMode != layout.ModeAppend || o.force) {
		return usageErrorf("--name is required (with --mode append, only to create the memory)")
	}
	switch {
	case o.force && o.writeMode != layout.ModeCreate:
		return usageErrorf("--force goes with --mode create only")
	case o.force:
		o.writeMode = layout.ModeOverwrite
	case !o.writeMode.Valid():
		return usageErrorf("--mode %q: want create, append or overwrite", o.mode)
	}
	if !layout.KnownType(o.typ) {
		return usageErrorf("--type %q: want user, feedback, project or reference", o.typ)
	}
	if _, err := layout.Slug(o.topic); err != nil {
		return usageError{err}
	}
	return nil
}

// remember writes the typed memory with body, now.
func (f *factory) remember(ctx context.Context, opts *rememberOptions, body string) error {
	ws, err := f.workspaceFor(opts.teammate)
	if err != nil {
		return err
	}
	now, err := f.Now()
	if err != nil {
		return err
	}
	rel, err := ws.WriteMemory(ctx, opts.teammate, layout.Memory{
		Type: opts.typ, Topic: opts.topic, Name: opts.name, Description: opts.description, Body: body, At: now,
	}, opts.writeMode, writeOptions(opts.allowSecret)...)
	return f.reportWrite(rel, "wrote", err)
}
