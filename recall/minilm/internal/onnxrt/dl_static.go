//go:build tmem_static

package onnxrt

import "errors"

// CanLoad says whether this build can load a shared library at run time: a
// build with the tmem_static tag is a static executable, which has no
// dynamic loader to load one with.
const CanLoad = false

// ErrStatic is what loading a library returns in a static build.
var ErrStatic = errors.New("this tmem is a static build (tag tmem_static), which cannot load shared libraries; build without the tag to use ONNX Runtime")

func dlopen(string) (uintptr, error) { return 0, ErrStatic }

func dlsym(uintptr, string) (uintptr, error) { return 0, ErrStatic }

// registerFunc is never reached: dlopen fails first.
func registerFunc(any, uintptr) { panic(ErrStatic) }
