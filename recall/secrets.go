package recall

import "github.com/tmemhq/tmem/internal/secrets"

// redactHits replaces the secrets in what each hit shows (text, name and
// heading) with "[REDACTED:kind]" and lists their rules in Redacted, so
// that no front end prints a credential found in a memory file.
func redactHits(hits []Hit) {
	for i := range hits {
		h := &hits[i]
		for _, s := range []*string{&h.Text, &h.Name, &h.Heading} {
			out, found := secrets.Redact(*s)
			*s = out
			for _, f := range found {
				h.Redacted = append(h.Redacted, f.Rule)
			}
		}
	}
}
