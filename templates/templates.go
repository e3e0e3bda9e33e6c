package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/internal/bytesize"
)

//go:embed files/*.md
var files embed.FS

// Names of the built-in templates.
const (
	Soul         = "SOUL.md"
	Goals        = "GOALS.md"
	Wisdom       = "WISDOM.md"
	CrossTeam    = "CROSS-TEAM.md"
	Instructions = "memory-instructions.md"
	Protocol     = "output-protocol.md"
)

// Names lists every built-in template.
func Names() []string {
	ents, _ := fs.ReadDir(files, "files")
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Overrides reads a workspace's override of a template by name; an error
// matching fs.ErrNotExist means there is none. A nil Overrides has none.
type Overrides func(name string) ([]byte, error)

// Read returns the template name: its override when there is one, else the
// built-in one. An override that exists but cannot be read is an error.
func Read(ov Overrides, name string) ([]byte, error) {
	if strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("template %q: not a template name", name)
	}
	if ov != nil {
		b, err := ov(name)
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read template override %s: %w", name, err)
		}
	}
	b, err := files.ReadFile("files/" + name)
	if err != nil {
		return nil, fmt.Errorf("template %q does not exist (known: %s)", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Render reads a template and replaces {{key}} placeholders from vars.
func Render(ov Overrides, name string, vars map[string]string) ([]byte, error) {
	b, err := Read(ov, name)
	if err != nil {
		return nil, err
	}
	if len(vars) == 0 {
		return b, nil
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var pairs []string
	size := len(b)
	for _, k := range keys {
		p := "{{" + k + "}}"
		n := strings.Count(string(b), p)
		size += n * (len(vars[k]) - len(p))
		if size > MaxRendered {
			return nil, fmt.Errorf("template %s: %s appears %d times, and filled in the template would be over the %s limit", name, p, n, bytesize.Format(MaxRendered))
		}
		pairs = append(pairs, p, vars[k])
	}
	return []byte(strings.NewReplacer(pairs...).Replace(string(b))), nil
}

// MaxRendered bounds what Render makes: a placeholder repeated in an
// override (which may hold 4 MiB of them) multiplies what it stands for,
// such as a week of logs for a compaction prompt, and would exhaust the
// memory long before a model could read it.
const MaxRendered = 64 << 20
