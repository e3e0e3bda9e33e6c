package secrets

import "strings"

// assignHints find the names the assignment rule reads; each is part of
// at least one secret-like name word.
var assignHints = []string{"secret", "token", "pass", "pwd", "key", "auth", "credential", "cred", "bearer"}

// Name words that make a name secret-like on their own.
var (
	passwordWords = set("password", "passwd", "pwd", "pass", "passphrase", "passcode")
	secretWords   = set("secret", "secrets", "token", "apikey", "apitoken", "accesskey", "secretkey", "privatekey",
		"authtoken", "accesstoken", "refreshtoken", "clientsecret", "credential", "credentials", "creds", "bearer",
		"authorization", "auth", "sessionkey", "signingkey", "masterkey")
	// keyQualifiers make "key" secret-like: "api_key", "x-api-key",
	// "signing_key", but not "cache_key" or "sort_key".
	keyQualifiers = set("api", "access", "secret", "private", "auth", "signing", "encryption", "master", "client",
		"account", "service", "app", "admin", "license", "session", "deploy", "webhook", "hmac", "aes", "ssh",
		"openai", "anthropic", "stripe", "github", "gitlab", "slack", "google", "aws", "azure", "gcp", "twilio",
		"sendgrid", "mailgun", "datadog", "sentry")
	// vetoWords name something about a secret that is not one: its id,
	// length, file, environment variable, URL, expiry, ….
	vetoWords = set("id", "ids", "public", "count", "limit", "limits", "max", "min", "length", "len", "size",
		"budget", "type", "url", "uri", "endpoint", "file", "path", "env", "name", "hint", "expiry", "expires",
		"expiration", "ttl", "header", "field", "format", "usage", "prefix", "hash", "digest", "fingerprint")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// assignmentAt reads "name <sep> value" around a hint inside the name,
// where sep is =, :, := or =>, the name and the value may be quoted, and
// the value may follow "Bearer", "Basic" or "token". It reports the value
// when the name is secret-like and the value looks random. A value
// nested under the name (a YAML or JSON mapping or list) is read as the
// name's own: see nestedValues.
func assignmentAt(s *scan, i int, _ string) (match, bool) {
	t := s.text
	ns, ne := i, i
	for ns > 0 && nameByte(t[ns-1]) && i-ns <= maxName {
		ns--
	}
	for ne < len(t) && nameByte(t[ne]) && ne-ns <= maxName {
		ne++
	}
	if ne-ns > maxName || s.named[ns] {
		return match{}, false
	}
	s.named[ns] = true
	as := nameRule(t[ns:ne])
	if as == nil {
		return match{}, false
	}
	vs, ok := valueStart(t, ns, ne)
	if !ok {
		return match{}, false
	}
	if s.nestedValues(ns, vs, as) {
		return match{}, false
	}
	vs, ve := schemeValue(t, vs)
	return assigned(t, vs, ve, as)
}

// schemeValue reads the value at i, past "Bearer", "Basic" or "token"
// before it.
func schemeValue(t string, i int) (vs, ve int) {
	vs, ve = readValue(t, i)
	if word := strings.ToLower(t[vs:ve]); (word == "bearer" || word == "basic" || word == "token") && ve < len(t) && t[ve] == ' ' {
		vs, ve = readValue(t, ve+1)
	}
	return vs, ve
}

// assigned is the match for t[vs:ve], a value assigned to a name that
// rule as reads, if the value looks like a secret.
func assigned(t string, vs, ve int, as *rule) (match, bool) {
	v := t[vs:ve]
	if v == "" || strings.HasSuffix(v, "EXAMPLEKEY") { // AWS's documentation key
		return match{}, false
	}
	if as == awsSecretRule && !awsSecret(v) {
		as = secretRule
	}
	if as != awsSecretRule && !looksRandom(v) {
		return match{}, false
	}
	return match{start: vs, end: ve, as: as}, true
}

// maxName and maxValue bound what the assignment rule reads, so that
// text built of endless names or unclosed quotes scans in linear time.
const (
	maxName  = 64
	maxValue = 1024
)

func nameByte(c byte) bool { return alnum(c) || c == '_' || c == '-' || c == '.' }

// nameRule says what a value assigned to name would be: nil when the name
// is not secret-like.
func nameRule(name string) *rule {
	words := nameWords(name)
	var pass, secret, key, qualified, aws bool
	for _, w := range words {
		switch {
		case vetoWords[w]:
			return nil
		case passwordWords[w] || strings.HasSuffix(w, "password") || strings.HasSuffix(w, "passwords") || strings.HasSuffix(w, "passwd"):
			pass = true
		case secretWords[w] || strings.HasSuffix(w, "token") || strings.HasSuffix(w, "tokens") || strings.HasSuffix(w, "secret"):
			secret = true
		case w == "key" || w == "keys":
			key = true
		}
		qualified = qualified || keyQualifiers[w]
		aws = aws || w == "aws"
	}
	switch {
	case aws && (secret || key && qualified):
		return awsSecretRule
	case pass:
		return passwordRule
	case secret || key && qualified:
		return secretRule
	}
	return nil
}

// nameWords splits an identifier into lower-case words at separators and
// case changes: "X-Api-Key", "apiKey", "API_KEY" and "APIKey" all give
// api, key.
func nameWords(name string) []string {
	var words []string
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r > 127 || !alnum(byte(r)) }) {
		start := 0
		for i := 1; i < len(part); i++ {
			prev, c := part[i-1], part[i]
			next := byte(0)
			if i+1 < len(part) {
				next = part[i+1]
			}
			lowerToUpper := !isUpper(prev) && isUpper(c)
			acronymEnd := isUpper(prev) && isUpper(c) && next != 0 && 'a' <= next && next <= 'z'
			if lowerToUpper || acronymEnd {
				words = append(words, strings.ToLower(part[start:i]))
				start = i
			}
		}
		words = append(words, strings.ToLower(part[start:]))
	}
	return words
}

// valueStart finds where the value assigned after a name from ns to i
// starts: after closing quotes or emphasis, a separator, and what YAML
// lets come before a value. ok is false when no separator follows.
func valueStart(t string, ns, i int) (int, bool) {
	i = skip(t, i, "\"'`*")
	i = skip(t, i, " \t")
	switch {
	case strings.HasPrefix(t[i:], ":="), strings.HasPrefix(t[i:], "=>"):
		i += 2
	case strings.HasPrefix(t[i:], "=="), strings.HasPrefix(t[i:], "://"), strings.HasPrefix(t[i:], "::"):
		return 0, false
	case strings.HasPrefix(t[i:], "="), strings.HasPrefix(t[i:], ":"):
		i++
	default:
		return 0, false
	}
	i = skip(t, i, "*")
	i = skip(t, i, " \t")
	return yamlProperties(t, ns, i)
}

// yamlProperties skips what YAML lets come before a value assigned to
// the name starting at ns: an anchor ("&pw "), a tag that keeps the
// value a string ("!!str ", "!!binary ", "! "), then, at the end of the
// line (a comment may follow a block scalar's header: "|", ">-", "|2"),
// the line break and the indentation of the value's first line, which
// must be indented deeper than the name. Any other tag ("!Ref",
// "!ImportValue", "!secret", "!vault") means the value is elsewhere: ok
// is false. Text that is none of these is left as it is.
func yamlProperties(t string, ns, i int) (int, bool) {
	props := false
	for n := 0; n < 2 && i < len(t) && (t[i] == '&' || t[i] == '!'); n++ {
		j := i
		for j < len(t) && j-i <= maxValue && strings.IndexByte(" \t\r\n", t[j]) < 0 {
			j++
		}
		if t[i] == '!' && !stringTag(t[i:j]) {
			return i, false
		}
		i, props = skip(t, j, " \t"), true
	}
	if i < len(t) && (t[i] == '|' || t[i] == '>') {
		j := skip(t, skip(t, i+1, "+-0123456789"), " \t")
		if j < len(t) && t[j] == '#' {
			j = lineEnd(t, j)
		}
		return nextLineValue(t, ns, i, j)
	}
	if props {
		return nextLineValue(t, ns, i, i)
	}
	return i, true
}

// stringTag reports whether the YAML tag keeps its value a string.
func stringTag(tag string) bool {
	switch tag {
	case "!", "!!str", "!!binary", "!<tag:yaml.org,2002:str>", "!<tag:yaml.org,2002:binary>":
		return true
	}
	return false
}

// nextLineValue is where the value starts when the line goes on no
// further than j (white space aside): the first non-blank line after it,
// if that is indented deeper than the name at ns. Otherwise it is i, the
// value on this line.
func nextLineValue(t string, ns, i, j int) (int, bool) {
	j = skip(t, j, " \t\r")
	if j >= len(t) || t[j] != '\n' {
		return i, true
	}
	col, ok := column(t, ns)
	if !ok {
		return i, true
	}
	for k := j + 1; k < len(t) && k-j <= maxValue; k = skip(t, k, "\n") {
		line := k
		if k = skip(t, k, " \t\r"); k < len(t) && t[k] != '\n' {
			if k-line > col {
				return k, true
			}
			return i, true
		}
	}
	return i, true
}

// column is how far into its line the name at ns starts; ok is false when
// the line's start is more than maxName bytes back.
func column(t string, ns int) (int, bool) {
	for k := ns; k > 0 && ns-k <= maxName; k-- {
		if t[k-1] == '\n' {
			return ns - k, true
		}
	}
	return ns, ns <= maxName
}

// lineEnd is the offset of the line break that ends the line at i, or
// len(t), looking at most maxValue bytes on.
func lineEnd(t string, i int) int {
	if n := strings.IndexByte(t[i:min(len(t), i+maxValue)], '\n'); n >= 0 {
		return i + n
	}
	return min(len(t), i+maxValue)
}

// readValue reads a quoted value (without its quotes, on one line) or a
// bare one, up to white space or a delimiter.
func readValue(t string, i int) (start, end int) {
	if i < len(t) && strings.IndexByte("\"'`", t[i]) >= 0 {
		q := t[i]
		window := t[i+1 : min(len(t), i+2+maxValue)]
		if n := strings.IndexAny(window, string(q)+"\n"); n >= 0 && window[n] == q {
			return i + 1, i + 1 + n
		}
		i++
	}
	end = i
	for end < len(t) && end-i <= maxValue && strings.IndexByte(" \t\r\n\"'`,;&", t[end]) < 0 {
		end++
	}
	for end > i && strings.IndexByte(".)]}>*", t[end-1]) >= 0 {
		end--
	}
	return i, end
}

func skip(t string, i int, chars string) int {
	for i < len(t) && strings.IndexByte(chars, t[i]) >= 0 {
		i++
	}
	return i
}

// awsSecret reports the 40 base64 characters of an AWS secret access key.
func awsSecret(v string) bool {
	if len(v) != 40 || entropy(v) < minEntropy {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !alnum(v[i]) && v[i] != '/' && v[i] != '+' {
			return false
		}
	}
	return true
}
