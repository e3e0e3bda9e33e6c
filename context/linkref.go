package context

// refLines returns how many of a paragraph's first lines are link
// reference definitions ("[a]: /url 'title'"), which the parser takes
// out of the paragraph when a setext underline closes it: when they are
// all of its lines, the underline underlines nothing. It follows the
// parser's reading of definitions, not only CommonMark's: a label ends
// at the first "]" and holds no "[", a destination may leave "(" open.
// para is the paragraph's lines joined by "\n"; it is read once,
// without allocating.
func refLines(para string) int {
	r := refReader{s: para}
	done := 0 // the lines before it are definitions
	for {
		r.skipSpace()
		if r.i == len(r.s) || r.line() > done {
			return done
		}
		end, more := r.definition()
		done = max(done, end)
		if !more {
			return done
		}
	}
}

// refReader reads a paragraph from i on, counting lines as it goes.
type refReader struct {
	s       string
	i       int
	counted int // s[:counted] holds lines-1 line breaks
	lines   int
}

// line is the 0-based line i is on.
func (r *refReader) line() int {
	for ; r.counted < r.i; r.counted++ {
		if r.s[r.counted] == '\n' {
			r.lines++
		}
	}
	return r.lines
}

// definition reads a definition at i and returns the line after the
// lines it takes out (0 when it is none) and whether another can follow.
func (r *refReader) definition() (end int, more bool) {
	first := r.line()
	if r.s[r.i] != '[' {
		return 0, false
	}
	r.i++
	label, ok := r.closure('[', ']')
	if !ok || blank(label) || r.at() != ':' {
		return 0, false
	}
	r.i++
	r.skipSpace()
	if !r.destination() {
		return 0, false
	}
	ended := r.restBlank() // the destination ends its line
	last := r.line()
	spaces := r.skipSpace()
	opener := r.at()
	closer := titleCloser(opener)
	switch {
	case closer == 0 && ended:
		return last + 1, true
	case closer == 0 || spaces == 0:
		return 0, false
	}
	r.i++
	_, titled := r.closure(opener, closer)
	switch {
	case !titled && ended:
		// No title: the definition ends with its destination, and the
		// line the title would open stays paragraph text.
		return last + 1, false
	case !titled:
		return 0, false
	case r.restBlank():
		return r.line() + 1, true
	case !ended:
		return 0, false
	case first == last:
		// Text after a title on a line of its own: the definition ends
		// with its destination, and the next is read after the title.
		return last + 1, true
	}
	return last, true
}

// destination reads a link destination: "<...>" on one line, or a run
// of non-space bytes with its ")" balanced.
func (r *refReader) destination() bool {
	rest := r.s[r.i:]
	if len(rest) > 0 && rest[0] == '<' {
		for i := 1; i < len(rest) && rest[i] != '\n'; i++ {
			switch {
			case rest[i] == '\\' && i+1 < len(rest) && punct(rest[i+1]):
				i++
			case rest[i] == '>':
				r.i += i + 1
				return true
			}
		}
		return false
	}
	open, i := 0, 0
	for ; i < len(rest) && !space(rest[i]); i++ {
		c := rest[i]
		if c == '\\' && i+1 < len(rest) && punct(rest[i+1]) {
			i++
			continue
		}
		if c == '(' {
			open++
		} else if c == ')' {
			if open--; open < 0 {
				break
			}
		}
	}
	r.i += i
	return i > 0
}

// closure reads up to the closer, over lines, and returns what it
// passed; another opener before it, or the end, fails.
func (r *refReader) closure(opener, closer byte) (string, bool) {
	from := r.i
	for ; r.i < len(r.s); r.i++ {
		c := r.s[r.i]
		switch {
		case c == '\\' && r.i+1 < len(r.s) && punct(r.s[r.i+1]):
			r.i++
		case c == closer:
			r.i++
			return r.s[from : r.i-1], true
		case c == opener:
			return "", false
		}
	}
	return "", false
}

// skipSpace skips white space and line breaks and returns how many bytes.
func (r *refReader) skipSpace() int {
	from := r.i
	for r.i < len(r.s) && space(r.s[r.i]) {
		r.i++
	}
	return r.i - from
}

// restBlank reports whether the rest of i's line is white space.
func (r *refReader) restBlank() bool {
	for i := r.i; i < len(r.s) && r.s[i] != '\n'; i++ {
		if !space(r.s[i]) {
			return false
		}
	}
	return true
}

// at is the byte at i, 0 at the end.
func (r *refReader) at() byte {
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

// titleCloser is what closes a link title that opener opens, 0 when it
// opens none.
func titleCloser(opener byte) byte {
	switch opener {
	case '"', '\'':
		return opener
	case '(':
		return ')'
	}
	return 0
}

func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if !space(s[i]) {
			return false
		}
	}
	return true
}

// space is white space as the parser reads it: space, tab, CR and LF.
func space(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// punct is ASCII punctuation, which a backslash escapes.
func punct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
