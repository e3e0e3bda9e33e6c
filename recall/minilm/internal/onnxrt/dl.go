//go:build !tmem_static && !windows

package onnxrt

import "github.com/ebitengine/purego"

// CanLoad says whether this build can load a shared library at run time.
const CanLoad = true

// ErrNoLoader is nil: this build loads shared libraries.
var ErrNoLoader error

func dlopen(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func dlsym(lib uintptr, name string) (uintptr, error) { return purego.Dlsym(lib, name) }

// registerFunc makes the Go function fptr points to call the C function cfn.
func registerFunc(fptr any, cfn uintptr) { purego.RegisterFunc(fptr, cfn) }
