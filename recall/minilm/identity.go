package minilm

// Identity returns the Identity an Embedder opened on dir would have,
// without loading the model: it checks that the files Open needs are
// there, reads config.json and takes the model files' sums (cached, see
// Open). Callers that may never embed use it to open the model lazily.
func Identity(dir string) (string, error) {
	id, _, err := Identities(dir)
	return id, err
}

// Identities is Identity and, from the same sums, the identity the model in
// dir had under the previous pipeline: vectors stored under that one are
// this pipeline's for every text DiffersFromPrevious does not report (see
// Embedder.Succeeds).
func Identities(dir string) (current, previous string, err error) {
	if err := checkModelDir(dir); err != nil {
		return "", "", err
	}
	if _, err := readConfig(dir); err != nil {
		return "", "", err
	}
	return identities(dir)
}
