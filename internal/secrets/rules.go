package secrets

import (
	"hash/crc32"
	"strings"
	"sync"
)

// rule is one row of the table: where to look (hints) and how to read a
// match around a hint.
type rule struct {
	id, kind, name string
	rank           int // place in the table: the first rule wins a tie
	// hints are literal strings every match contains; the rule runs only
	// where one occurs. With fold they are lower case and match either
	// case of ASCII letters.
	hints []string
	fold  bool
	// at reads the match the hint found at byte i belongs to.
	at func(s *scan, i int, hint string) (match, bool)
}

type match struct {
	start, end int
	verified   bool
	as         *rule // the rule to report, when not the one that matched
	// nested is set for a value read as the value of a name above it; a
	// match of the same text by its own name wins.
	nested bool
}

// scan is one Scan call's state, shared by the rules.
type scan struct {
	text  string
	named map[int]bool // assignment names already read, by start offset
	// more are further matches of the rule that just ran: the values
	// nested under a secret-like name.
	more []match
	// flowTo and blockTo are where the last read of nested values in a
	// flow collection, and in a block, stopped.
	flowTo, blockTo int
}

// hasPrefixFold reports whether t starts with the lower-case hint h,
// ignoring the case of ASCII letters.
func hasPrefixFold(t, h string) bool {
	if len(t) < len(h) {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != h[i] {
			return false
		}
	}
	return true
}

// hint is one hint of one rule, indexed by its first byte.
type hint struct {
	rule *rule
	text string
}

// hintIndex finds where a rule may match. byByte lists, for each byte, the
// hints that may start there; a folded hint is listed under both cases of
// its first letter. pairs holds the first two bytes of every hint (both
// cases when folded), a cheap filter run at every byte.
type hintIndex struct {
	byByte [256][]hint
	pairs  [1 << 16]bool
}

// hints is built on first use, not when a process starts: most tmem
// commands never scan for secrets.
var hints = sync.OnceValue(func() *hintIndex {
	x := new(hintIndex)
	for i := range rules {
		r := &rules[i]
		r.rank = i
		for _, h := range r.hints {
			for _, a := range cases(h[0], r.fold) {
				x.byByte[a] = append(x.byByte[a], hint{r, h})
				for _, b := range cases(h[1], r.fold) {
					x.pairs[int(a)<<8|int(b)] = true
				}
			}
		}
	}
	return x
})

// cases returns c, and its upper case when fold and c is a lower-case
// letter.
func cases(c byte, fold bool) []byte {
	if fold && 'a' <= c && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// candidate is a match before overlaps are resolved.
type candidate struct {
	Finding
	rank int
}

// candidates runs every rule at every hint, in one pass over the text.
func (s *scan) candidates() []candidate {
	var out []candidate
	t := s.text
	x := hints()
	for i := 0; i+1 < len(t); i++ {
		if !x.pairs[int(t[i])<<8|int(t[i+1])] {
			continue
		}
		for _, h := range x.byByte[t[i]] {
			if h.rule.fold && !hasPrefixFold(t[i:], h.text) || !h.rule.fold && !strings.HasPrefix(t[i:], h.text) {
				continue
			}
			if m, ok := h.rule.at(s, i, h.text); ok {
				out = append(out, h.rule.candidate(m))
			}
			for _, m := range s.more {
				out = append(out, h.rule.candidate(m))
			}
			s.more = s.more[:0]
		}
	}
	return out
}

// candidate is m, found by r.
func (r *rule) candidate(m match) candidate {
	as := r
	if m.as != nil {
		as = m.as
	}
	rank := 2 * r.rank
	if m.nested {
		rank++
	}
	return candidate{Finding{Rule: as.id, Kind: as.kind, Name: as.name, Verified: m.verified, Start: m.start, End: m.end}, rank}
}

// rules is the table, most specific first.
var rules = []rule{
	{id: "private-key", kind: "private-key", name: "a private key", hints: []string{"-----BEGIN "}, at: privateKeyAt},
	token("aws-access-key-id", "aws-access-key", "an AWS access key ID", base32Upper, 16, 16, awsKeyID, "AKIA", "ASIA", "ABIA", "ACCA"),
	token("github-pat", "github-token", "a GitHub token", alnum, 36, 36, githubClassic, "ghp_"),
	token("github-pat", "github-token", "a GitHub token", alnumUnderscore, 40, 255, plausibleToken, "github_pat_"),
	token("github-oauth", "github-token", "a GitHub OAuth token", alnum, 36, 36, githubClassic, "gho_"),
	token("github-app", "github-token", "a GitHub App token", alnum, 36, 36, githubClassic, "ghu_", "ghs_"),
	token("github-refresh", "github-token", "a GitHub refresh token", alnum, 36, 36, githubClassic, "ghr_"),
	token("gitlab-token", "gitlab-token", "a GitLab token", gitlabByte, 20, 255, plausibleToken,
		"glpat-", "glptt-", "glrt-", "gldt-", "glft-", "glsoat-", "glcbt-", "glimt-", "gloas-"),
	token("slack-token", "slack-token", "a Slack token", slackByte, 10, 255, slackToken,
		"xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxr-", "xoxs-", "xoxe-", "xapp-"),
	token("anthropic-key", "anthropic-key", "an Anthropic API key", base64URL, 20, 255, plausibleToken, "sk-ant-"),
	token("openai-key", "openai-key", "an OpenAI API key", base64URL, 20, 255, openAIKey, "sk-"),
	token("google-api-key", "google-api-key", "a Google API key", base64URL, 35, 35, plausibleToken, "AIza"),
	token("stripe-key", "stripe-key", "a Stripe secret key", alnum, 20, 255, plausibleToken, "sk_live_", "rk_live_"),
	{id: "jwt", kind: "jwt", name: "a JSON Web Token", hints: []string{"eyJ"}, at: jwtAt},
	{id: "url-password", kind: "password", name: "a password in a URL", hints: []string{"://"}, at: urlPasswordAt},
	{id: "assignment", hints: assignHints, fold: true, at: assignmentAt},
}

// What the assignment rule reports, by the name a value is assigned to.
var (
	awsSecretRule = &rule{id: "aws-secret-key", kind: "aws-secret-key", name: "an AWS secret access key"}
	passwordRule  = &rule{id: "password-assignment", kind: "password", name: "a password"}
	secretRule    = &rule{id: "secret-assignment", kind: "secret", name: "a secret value"}
)

// token builds a rule for a prefix followed by a run of body bytes of
// min to max length, bounded on both sides by a byte that is not a letter
// or digit. check sees the whole token and its body.
func token(id, kind, name string, body func(byte) bool, min, max int, check func(tok, body string) (ok, verified bool), prefixes ...string) rule {
	return rule{id: id, kind: kind, name: name, hints: prefixes, at: func(s *scan, i int, prefix string) (match, bool) {
		t := s.text
		if i > 0 && alnum(t[i-1]) {
			return match{}, false
		}
		j := i + len(prefix)
		for j < len(t) && body(t[j]) && j-i-len(prefix) <= max {
			j++
		}
		for j > i+len(prefix) && t[j-1] == '.' { // the end of a sentence
			j--
		}
		n := j - i - len(prefix)
		if n < min || n > max || (j < len(t) && alnum(t[j])) {
			return match{}, false
		}
		ok, verified := check(t[i:j], t[i+len(prefix):j])
		return match{start: i, end: j, verified: verified}, ok
	}}
}

func plausibleToken(_, body string) (bool, bool) { return !placeholder(body), false }

// awsKeyID leaves out the keys of AWS's documentation.
func awsKeyID(tok, body string) (bool, bool) {
	return !strings.HasSuffix(tok, "EXAMPLE") && !placeholder(body), false
}

// githubClassic checks the checksum of ghp_/gho_/ghu_/ghs_/ghr_ tokens:
// the last 6 characters are the CRC32 of the 30 before them, in base62.
func githubClassic(_, body string) (bool, bool) {
	if base62(crc32.ChecksumIEEE([]byte(body[:30])), 6) == body[30:] {
		return true, true
	}
	return !placeholder(body), false
}

const base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// base62 writes n in base 62, left-padded with zeros to width.
func base62(n uint32, width int) string {
	b := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		b[i] = base62Digits[n%62]
		n /= 62
	}
	return string(b)
}

// slackToken wants the digits every Slack token has (team, user or app
// ids), which placeholders such as xoxb-your-token-here lack.
func slackToken(_, body string) (bool, bool) {
	return strings.ContainsAny(body, "0123456789") && !placeholder(body), false
}

// openAIKey leaves Anthropic's sk-ant- keys to their own rule.
func openAIKey(tok, body string) (bool, bool) {
	if strings.HasPrefix(tok, "sk-ant-") {
		return false, false
	}
	return !placeholder(body), false
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
func alnumUnderscore(c byte) bool { return alnum(c) || c == '_' }
func base64URL(c byte) bool       { return alnum(c) || c == '_' || c == '-' }
func gitlabByte(c byte) bool      { return base64URL(c) || c == '.' }
func slackByte(c byte) bool       { return alnum(c) || c == '-' }
func base32Upper(c byte) bool     { return 'A' <= c && c <= 'Z' || '2' <= c && c <= '7' }
