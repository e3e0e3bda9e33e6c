package compact

import (
	"fmt"
	"strings"

	"github.com/tmemhq/tmem/templates"
)

// Prompt templates, overridable in the workspace's templates/ folder.
var promptTemplates = map[Kind]string{
	KindWeekly:  "compact-weekly.md",
	KindMonthly: "compact-monthly.md",
	KindWisdom:  "compact-wisdom.md",
}

// Prompt renders the LLM prompt for req from its template; ov (may be
// nil) reads the workspace's overrides.
func Prompt(ov templates.Overrides, req Request) (string, error) {
	name, ok := promptTemplates[req.Kind]
	if !ok {
		return "", fmt.Errorf("prompt: unknown kind %q", req.Kind)
	}
	var src strings.Builder
	for _, s := range req.Sources {
		fmt.Fprintf(&src, "\n### %s (%s)\n\n%s\n", s.Label, s.Path, strings.TrimSpace(s.Text))
	}
	existing := strings.TrimSpace(req.Existing)
	if existing == "" {
		existing = "(none)"
	}
	b, err := templates.Render(ov, name, map[string]string{
		"teammate": req.Teammate,
		"unit":     req.Unit,
		"period":   req.Period,
		"existing": existing,
		"sources":  src.String(),
		"budget":   fmt.Sprint(budgetOf(req)),
	})
	if err != nil {
		return "", fmt.Errorf("prompt %s: %w", req.Unit, err)
	}
	return string(b), nil
}

// cleanOutput drops a code fence wrapped around the whole answer, which
// models add even when told not to.
func cleanOutput(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "```") && strings.HasSuffix(t, "```") {
		if i := strings.Index(t, "\n"); i > 0 {
			t = strings.TrimSpace(strings.TrimSuffix(t[i+1:], "```"))
		}
	}
	return t
}
