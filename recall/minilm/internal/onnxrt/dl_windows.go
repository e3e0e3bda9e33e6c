//go:build windows && !tmem_static

package onnxrt

import "errors"

// CanLoad says whether this build can load a shared library at run time:
// not on Windows, where ONNX Runtime's loader, its wide-character paths
// and file mappings are not wired up; embedding runs on the pure-Go
// backend there.
const CanLoad = false

// ErrNoLoader is what loading a library returns on Windows.
var ErrNoLoader = errors.New("this tmem cannot load ONNX Runtime on Windows; embedding runs on the pure-Go backend")

func dlopen(string) (uintptr, error) { return 0, ErrNoLoader }

func dlsym(uintptr, string) (uintptr, error) { return 0, ErrNoLoader }

// registerFunc is never reached: dlopen fails first.
func registerFunc(any, uintptr) { panic(ErrNoLoader) }
