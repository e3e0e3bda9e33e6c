package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tmemhq/tmem/internal/quote"
	"github.com/tmemhq/tmem/internal/secrets"
	"github.com/tmemhq/tmem/layout"
)

// maxGetBytes bounds the text one memory_get call returns: a longer range
// stops after the last whole line that fits, and next_from_line says
// where to read on.
const maxGetBytes = 128 << 10

// redactMargin is how much of the file before and after the text returned
// is scanned for secrets with it: more than the longest secret the
// scanner reads (a private key block, up to 64 KiB past its header), so
// a key that starts above from_line or runs on past the cut is found
// whole and its part in the text redacted.
const redactMargin = 96 << 10

// GetInput names a memory file and, optionally, a line range.
type GetInput struct {
	Path     string `json:"path" jsonschema:"a memory file relative to the workspace (beacon/memory/feedback_no_mocks.md, CROSS-TEAM.md); a search hit's ref (path:start-end) works too"`
	FromLine int    `json:"from_line,omitempty" jsonschema:"first line to return, from 1; default 1"`
	MaxLines int    `json:"max_lines,omitempty" jsonschema:"how many lines at most; default: to the end of the file. A call returns at most 128 KiB of text either way"`
}

// GetOutput is the file's text, or part of it. The text goes to the
// client once, as the result's first text content; the structured
// content is the rest.
type GetOutput struct {
	Path     string `json:"path"`
	FromLine int    `json:"from_line"`
	ToLine   int    `json:"to_line"`
	// TotalLines is 0 when the read stopped before the end of the file.
	TotalLines   int      `json:"total_lines,omitempty" jsonschema:"the file's line count, when the read reached its end (it stops some 96 KiB past to_line)"`
	NextFromLine int      `json:"next_from_line,omitempty" jsonschema:"the line after to_line, when the file goes on: pass it as from_line to read on"`
	Cut          string   `json:"cut,omitempty" jsonschema:"why the text stops before the lines asked for: size (a call returns at most 128 KiB, up to a whole line) or long-line (line to_line alone is longer: only its start is shown)"`
	Text         string   `json:"-"`
	Redacted     []string `json:"redacted,omitempty" jsonschema:"kinds of secrets the text shows as [REDACTED:kind]"`
}

// Get returns a memory file or a range of its lines, reading the file
// only as far as the lines returned and a margin past them.
func (s *Service) Get(ctx context.Context, in GetInput) (GetOutput, error) {
	rel, from, max, err := parseRef(in)
	if err != nil {
		return GetOutput{}, err
	}
	if err := s.checkReadable(rel); err != nil {
		return GetOutput{}, err
	}
	w, err := s.readWindow(ctx, rel, from, max)
	if err != nil {
		return GetOutput{}, fmt.Errorf("get %s: %w", quote.IfNeeded(rel), err)
	}
	if err := layout.CheckTextAt(rel, w.text[w.start:w.end], from, w.base+int64(w.start)); err != nil {
		return GetOutput{}, err // as tmem show says it
	}
	if w.eof && from > w.total && !(from == 1 && w.total == 0) {
		return GetOutput{}, fmt.Errorf("get %s: from_line %d is past the end (the file has %d lines)", quote.IfNeeded(rel), from, w.total)
	}
	out := GetOutput{Path: rel, FromLine: from, ToLine: w.to, NextFromLine: w.next, Cut: w.cut}
	if w.eof {
		out.TotalLines = w.total
	}
	out.Text, out.Redacted = redactBlock(string(w.text), w.start, w.end)
	return out, nil
}

// window is a piece of a file: the lines returned, text[start:end], with
// up to redactMargin bytes of the file before and after them.
type window struct {
	text       []byte
	base       int64 // the offset in the file of text[0]
	start, end int
	to         int    // the last line returned, from-1 for none
	next       int    // the line after to, 0 when the file ends there
	cut        string // why the lines stop short of those asked for
	eof        bool   // text runs to the end of the file
	total      int    // the file's line count, when eof
}

// readWindow reads lines from..from+max-1 of rel (to the end when max is
// 0), at most maxGetBytes of them, and the margins around them.
func (s *Service) readWindow(ctx context.Context, rel string, from, max int) (*window, error) {
	f, err := s.ws.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > layout.MaxArchiveSize {
		return nil, fmt.Errorf("%w: %d bytes, over the %d a memory file may hold", layout.ErrTooLarge, st.Size(), layout.MaxArchiveSize)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	w := &window{}
	line, err := w.skipTo(ctx, br, from)
	if err != nil || w.eof {
		w.total, w.to = line, line
		return w, err
	}
	if err := w.readLines(br, from, max); err != nil {
		return nil, err
	}
	return w, w.readAfter(br)
}

// skipTo reads up to line from, keeping the last redactMargin bytes
// before it. It returns the number of lines passed, and sets eof when
// the file ended first.
func (w *window) skipTo(ctx context.Context, br *bufio.Reader, from int) (int, error) {
	line := 1
	for line < from {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		chunk, err := br.ReadSlice('\n')
		w.keepBefore(chunk)
		switch {
		case err == nil:
			line++
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			w.eof = true
			if len(chunk) == 0 {
				line--
			}
			return line, nil
		default:
			return 0, err
		}
	}
	return line - 1, nil
}

// keepBefore adds chunk to the text before from_line, keeping at most
// the last redactMargin bytes (and copying only now and then).
func (w *window) keepBefore(chunk []byte) {
	w.text = append(w.text, chunk...)
	if len(w.text) > 2*redactMargin {
		w.base += int64(len(w.text) - redactMargin)
		w.text = append(w.text[:0], w.text[len(w.text)-redactMargin:]...)
	}
}

// readLines reads the lines returned: up to max of them (all when 0),
// and no more than maxGetBytes. It sets start, end, to and cut; the part
// of a line it stopped in stays in text, after end.
func (w *window) readLines(br *bufio.Reader, from, max int) error {
	w.start = len(w.text)
	w.to = from - 1
	lineStart := w.start
	for max == 0 || w.to-from+1 < max {
		chunk, err := br.ReadSlice('\n')
		w.text = append(w.text, chunk...)
		if len(w.text)-w.start > maxGetBytes {
			w.stopShort(lineStart)
			return nil
		}
		switch {
		case err == nil:
			w.to++
			lineStart = len(w.text)
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			if lineStart < len(w.text) {
				w.to++
			}
			w.eof = true
			w.end = len(w.text)
			return nil
		default:
			return err
		}
	}
	w.end = len(w.text)
	return nil
}

// stopShort ends the lines returned before the one starting at lineStart,
// which goes past maxGetBytes; when that is the first line, at its last
// whole character within the limit.
func (w *window) stopShort(lineStart int) {
	if lineStart > w.start {
		w.end, w.cut = lineStart, "size"
		return
	}
	end := w.start + maxGetBytes
	for end > w.start && !utf8.RuneStart(w.text[end]) {
		end--
	}
	w.end, w.cut = end, "long-line"
	w.to++
}

// readAfter reads up to redactMargin bytes past the lines returned, and
// from them whether the file goes on past line to and, at its end, how
// many lines it has.
func (w *window) readAfter(br *bufio.Reader) error {
	if !w.eof {
		buf := make([]byte, max(0, redactMargin-(len(w.text)-w.end)))
		n, err := io.ReadFull(br, buf)
		w.text = append(w.text, buf[:n]...)
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			w.eof = true
		case err != nil:
			return err
		}
	}
	after := linesIn(w.text[w.end:])
	if w.cut == "long-line" && after > 0 {
		after-- // the rest of line to
	}
	if after > 0 || !w.eof {
		w.next = w.to + 1
	}
	w.total = w.to + after
	return nil
}

// linesIn counts the lines that start in b, the last one perhaps without
// its line break.
func linesIn(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// redactBlock returns text[start:end] with every secret that reaches into
// it shown as its marker, lines kept (see secrets.RedactRange), and the
// kinds redacted.
func redactBlock(text string, start, end int) (string, []string) {
	out, found := secrets.RedactRange(text, start, end)
	var kinds []string
	for _, f := range found {
		if !contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	return out, kinds
}

// parseRef reads a path or a path:start-end ref, and the line range.
func parseRef(in GetInput) (rel string, from, max int, err error) {
	rel, from, max = in.Path, in.FromLine, in.MaxLines
	if i := strings.LastIndexByte(rel, ':'); i > 0 && strings.HasSuffix(rel[:i], ".md") {
		a, b, ok := parseLines(rel[i+1:])
		if !ok || a < 1 || b < a {
			return "", 0, 0, fmt.Errorf("path %q: a ref is path:start-end with 1 <= start <= end, in digits and nothing after", in.Path)
		}
		rel = rel[:i]
		if from == 0 && max == 0 {
			from, max = a, b-a+1
		}
	}
	if from < 0 || max < 0 {
		return "", 0, 0, fmt.Errorf("from_line and max_lines must not be negative")
	}
	if from == 0 {
		from = 1
	}
	return rel, from, max, nil
}

// parseLines reads "start-end", two numbers in decimal digits only.
func parseLines(s string) (start, end int, ok bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok || !digits(a) || !digits(b) {
		return 0, 0, false
	}
	start, errA := strconv.Atoi(a)
	end, errB := strconv.Atoi(b)
	return start, end, errA == nil && errB == nil
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
