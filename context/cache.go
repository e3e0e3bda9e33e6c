package context

import (
	"time"

	"github.com/tmemhq/tmem/internal/filecache"
	"github.com/tmemhq/tmem/layout"
)

// Cache keeps what Build parses from files (SOUL.md, GOALS.md, WISDOM.md,
// the recent daily logs) between builds in a long-lived process, each
// file under its stat data: a file changed since is read again, and so is
// one changed within the last two seconds, whose stat data may not show
// a change yet. A Cache is safe for concurrent builds; the stacks it
// gives are byte for byte those of a build without it.
type Cache struct {
	docs *filecache.Cache[parsedDoc]
}

// NewCache returns an empty Cache. wall is the wall clock that file times
// are compared with: never a fixed clock such as Options.Now under --now.
func NewCache(wall func() time.Time) *Cache {
	return &Cache{docs: filecache.New[parsedDoc](wall)}
}

// parsedDoc is a file as readDoc parses it. It is shared by the builds
// that read it, which must not change it.
type parsedDoc struct {
	doc     *layout.Doc
	problem error // the frontmatter was read leniently
	err     error // the file does not parse
}

// parse reads rel and parses it leniently, from the cache when it holds
// rel as it is now; an error is the read's.
func (c *Cache) parse(ws *layout.Workspace, rel string) (parsedDoc, error) {
	var docs *filecache.Cache[parsedDoc]
	if c != nil {
		docs = c.docs
	}
	return docs.Read(ws, rel, layout.MaxFileSize, func(src []byte) (parsedDoc, error) {
		d, problem, err := layout.ParseLenient(rel, src)
		return parsedDoc{d, problem, err}, nil
	})
}
