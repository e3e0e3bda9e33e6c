package main

import (
	"errors"
	"fmt"

	"github.com/tmemhq/tmem/layout"
)

// writeOptions turns --allow-secret into layout's write options.
func writeOptions(allowSecret bool) []layout.WriteOption {
	opts := []layout.WriteOption{layout.Stamped}
	if allowSecret {
		opts = append(opts, layout.AllowSecrets)
	}
	return opts
}

// secretHint adds what to do to a refused secret.
func secretHint(err error) error {
	var se *layout.SecretError
	if errors.As(err, &se) {
		return fmt.Errorf("%w; remove it or pass --allow-secret", err)
	}
	return err
}

// reportWrite reports a write to a memory file: the path under --json,
// what was done under -v, or the refusal with what to do about a secret.
func (f *factory) reportWrite(rel, done string, err error) error {
	if err != nil {
		return secretHint(err)
	}
	if f.json {
		return f.printJSON(map[string]string{"path": rel})
	}
	f.infof("%s %s", done, rel)
	return nil
}
