package minilm

// BackendInfo says which backend embeds with a model folder, and why.
type BackendInfo struct {
	Backend string `json:"backend"`
	// Runtime names the ONNX Runtime version and library for "ort".
	Runtime string `json:"runtime,omitempty"`
	// Fallback says why "go" runs instead of ONNX Runtime.
	Fallback string `json:"fallback,omitempty"`
}

// Probe opens the model in dir, which mi describes (see Info), with
// backend (auto, go or ort) to see which backend runs. It embeds nothing,
// so the model is opened for queries, to start fast; a model that cannot
// be opened is described, not returned as an error. getenv reads the
// ONNX Runtime settings, as in Options.
func Probe(dir string, mi ModelInfo, backend string, getenv func(string) string) BackendInfo {
	if !mi.Complete && mi.Identity == "" {
		return BackendInfo{Backend: "none (model not installed: run 'tmem model pull')"}
	}
	e, err := Open(Options{ModelDir: dir, Backend: backend, Workload: WorkloadQueries, Getenv: getenv})
	if err != nil {
		return BackendInfo{Backend: "unavailable: " + err.Error()}
	}
	defer e.Close()
	return BackendInfo{Backend: e.Backend(), Runtime: e.Runtime(), Fallback: e.Fallback()}
}

// String is the backend as one line of text.
func (b BackendInfo) String() string {
	switch {
	case b.Runtime != "":
		return b.Backend + ", " + b.Runtime
	case b.Fallback != "":
		return b.Backend + " (pure Go: " + b.Fallback + ")"
	}
	return b.Backend
}
