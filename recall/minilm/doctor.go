package minilm

import "github.com/tmemhq/tmem/layout"

// Check reports the state of the model folder dir as doctor findings (see
// Manifest.Check).
func Check(dir string) []layout.Finding {
	return Pinned.Check(dir)
}

// Check reports, as info findings, a model folder dir that cannot be
// read, holds no model or holds files other than m's: without a model
// recall is BM25-only, a normal way to run, so none of them is an error.
// A complete model gives none.
func (m Manifest) Check(dir string) []layout.Finding {
	mi, err := m.Info(dir)
	switch {
	case err != nil:
		return []layout.Finding{{Path: dir, Severity: layout.SevInfo, Message: err.Error()}}
	case !mi.Complete && mi.Identity == "":
		return []layout.Finding{{Path: dir, Severity: layout.SevInfo, Message: "no embedding model installed: recall is BM25-only; run 'tmem model pull' (or 'tmem model pull --from DIR')"}}
	case !mi.Complete:
		return []layout.Finding{{Path: dir, Severity: layout.SevInfo, Message: "embedding model loads but does not match the pinned all-MiniLM-L6-v2 files; 'tmem model info' lists them"}}
	}
	return nil
}
