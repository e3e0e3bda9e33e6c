package onnxrt

// mapFile is never reached on Windows: no library is loaded (dl_windows.go).
func mapFile(string) ([]byte, error) { return nil, ErrNoLoader }

// unmap undoes mapFile.
func unmap([]byte) error { return nil }
