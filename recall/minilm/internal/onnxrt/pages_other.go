//go:build !linux

package onnxrt

// adviseHuge does nothing: huge pages for file mappings are Linux's.
func adviseHuge([]byte) {}

// RecacheHuge does nothing outside Linux (see pages_linux.go).
func RecacheHuge(string) {}
