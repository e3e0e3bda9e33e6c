package recall

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tmemhq/tmem/internal/quote"
)

// WriteHits writes hits as text, one block per hit: a path:start-end
// header with the kind, score, what found it and the memory's name and
// entry heading (the text does not repeat the heading), then the chunk
// text, indented. A path with a line break, a terminal escape or another
// character that does not print is quoted, as tmem list quotes it. A hit whose chunk has no vector yet says so in its header.
// It is how tmem recall and the memory server show hits.
func WriteHits(w io.Writer, hits []Hit) error {
	bw := bufio.NewWriter(w)
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		head := h.Title()
		fmt.Fprintf(bw, "%s:%d-%d  [%s %.3f %s]", quote.IfNeeded(h.Path), h.StartLine, h.EndLine, h.Kind, h.Score, strings.Join(h.Reason, ","))
		if head != "" {
			fmt.Fprintf(bw, "  %s", head)
		}
		if h.NoVector {
			fmt.Fprint(bw, "  (no vector yet: ranked by BM25 alone)")
		}
		fmt.Fprintln(bw)
		for _, l := range strings.Split(strings.TrimRight(h.Text, "\n"), "\n") {
			fmt.Fprintf(bw, "  %s\n", l)
		}
	}
	return bw.Flush()
}

// Title names what a hit comes from: its memory's name and its entry's
// heading ("Search alias cutover — Alias > Why"), or whichever of the two
// it has. A hit's text does not repeat its heading.
func (h Hit) Title() string {
	switch {
	case h.Name == "":
		return h.Heading
	case h.Heading != "" && h.Heading != h.Name:
		return h.Name + " — " + h.Heading
	}
	return h.Name
}
