// Package onnxrt calls ONNX Runtime's C API from Go without cgo.
//
// The runtime's shared library (libonnxruntime.so, .dylib) is opened at run
// time with purego; OrtGetApiBase hands back the OrtApi table of function
// pointers, and this package calls the few entries an embedding model needs:
// an environment, session options (thread counts, optimisation level, where
// to save the optimised model, weight prepacking), a session from an ONNX
// file or from a mapped file in ONNX Runtime's own format, tensors over Go
// memory, one run, and the matching releases. Everything else of the C API
// is left out on purpose.
//
// Data enters as a library path, a model path and int64 input tensors in Go
// slices; it leaves as float32 output written into a Go slice the caller
// sized. Errors carry the runtime's own message.
//
// The library is loaded once per process and stays loaded: ONNX Runtime
// cannot be unloaded safely while its threads may still run.
package onnxrt
