//go:build tmem_static

package onnxrt

import "errors"

// CanLoad says whether this build can load a shared library at run time: a
// build with the tmem_static tag is a static executable, which has no
// dynamic loader to load one with.
const CanLoad = false

// ErrNoLoader is what loading a library returns in a static build.
var ErrNoLoader = errors.New("this tmem is a static build (tag tmem_static), which cannot load shared libraries: embedding runs on the pure-Go backend; build without the tag to use ONNX Runtime")

func dlopen(string) (uintptr, error) { return 0, ErrNoLoader }

func dlsym(uintptr, string) (uintptr, error) { return 0, ErrNoLoader }

// registerFunc is never reached: dlopen fails first.
func registerFunc(any, uintptr) { panic(ErrNoLoader) }
