package minilm

// Identity returns the Identity an Embedder opened on dir would have,
// without loading the model: it checks that the files Open needs are
// there, reads config.json and takes the model files' sums (cached, see
// Open). Callers that may never embed use it to open the model lazily.
func Identity(dir string) (string, error) {
	if err := checkModelDir(dir); err != nil {
		return "", err
	}
	if _, err := readConfig(dir); err != nil {
		return "", err
	}
	return identity(dir)
}
