package serve

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// errRefused is wrapped by every refusal of the session's scope.
var errRefused = errors.New("refused")

// scope is what a session may touch. A session bound to a teammate writes
// only that teammate's memory and reads its own memory and the shared
// scope; a lead reads every teammate. An unbound session (an operator's)
// may touch everything.
type scope struct {
	teammate string // "" when unbound
	lead     bool
}

func (s scope) bound() bool { return s.teammate != "" }

// canRead says whether the session may read name's memory.
func (s scope) canRead(name string) error {
	if !s.bound() || s.lead || name == s.teammate {
		return nil
	}
	return fmt.Errorf("%w: this session is bound to %s, which is not a lead, so it cannot read %s's memory (start the server with --lead, or set lead: true in %s/SOUL.md)",
		errRefused, s.teammate, name, s.teammate)
}

// canWrite says whether the session may write name's memory.
func (s scope) canWrite(name string) error {
	if !s.bound() || name == s.teammate {
		return nil
	}
	return fmt.Errorf("%w: this session is bound to %s and writes only its own memory, not %s's", errRefused, s.teammate, name)
}

// teammate picks the teammate a call is about: the one asked for, else
// the session's own; an unbound session must name one.
func (s scope) pick(asked string) (string, error) {
	if asked != "" {
		return asked, nil
	}
	if s.bound() {
		return s.teammate, nil
	}
	return "", errors.New("teammate is required: this session is not bound to one")
}

// searchable lists the teammates a search may cover, given the ones asked
// for, each a valid name; nil means every teammate.
func (s scope) searchable(asked []string) ([]string, error) {
	if len(asked) == 0 {
		if s.bound() && !s.lead {
			return []string{s.teammate}, nil
		}
		return nil, nil
	}
	for _, t := range asked {
		if err := layout.ValidateName(t); err != nil {
			return nil, err
		}
		if err := s.canRead(t); err != nil {
			return nil, err
		}
	}
	return asked, nil
}

// IsLead reports whether a teammate's SOUL.md frontmatter says
// "lead: true". A SOUL.md that cannot be read or parsed is no lead.
func IsLead(ws *layout.Workspace, name string) bool {
	src, err := ws.ReadFile(name+"/SOUL.md", layout.MaxFileSize)
	if err != nil {
		return false
	}
	d, err := layout.Parse(name+"/SOUL.md", src)
	if err != nil {
		return false
	}
	v, err := strconv.ParseBool(strings.TrimSpace(d.Get("lead")))
	return err == nil && v
}
