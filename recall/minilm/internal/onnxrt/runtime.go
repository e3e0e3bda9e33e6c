package onnxrt

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"unsafe"
)

// apiVersion is the C API version asked for. Every entry used here exists
// since long before it, and a newer runtime serves older versions, so any
// ONNX Runtime from 1.17 on works.
const apiVersion = 17

// Indices into the OrtApi table (onnxruntime_c_api.h, struct OrtApi). The
// table only ever grows at its end, so they hold for every later version.
const (
	idxGetErrorMessage                  = 2
	idxCreateEnv                        = 3
	idxCreateSession                    = 7
	idxCreateSessionFromArray           = 8
	idxRun                              = 9
	idxCreateSessionOptions             = 10
	idxSetOptimizedModelFilePath        = 11
	idxSetSessionGraphOptimizationLevel = 23
	idxSetIntraOpNumThreads             = 24
	idxSetInterOpNumThreads             = 25
	idxCreateTensorWithDataAsOrtValue   = 49
	idxCreateCPUMemoryInfo              = 69
	idxReleaseStatus                    = 93
	idxReleaseMemoryInfo                = 94
	idxReleaseSession                   = 95
	idxReleaseValue                     = 96
	idxReleaseSessionOptions            = 100
	idxAddSessionConfigEntry            = 130
	tableLen                            = 131
)

// C enum values used here.
const (
	loggingLevelFatal = 4
	tensorInt64       = 7
	tensorFloat       = 1
	arenaAllocator    = 1
	memTypeDefault    = 0
)

// apiBase is struct OrtApiBase.
type apiBase struct {
	getAPI           uintptr
	getVersionString uintptr
}

// Runtime is a loaded ONNX Runtime library with its process-wide environment.
type Runtime struct {
	path    string
	version string
	env     uintptr
	cpuMem  uintptr

	errorMessage       func(status uintptr) string
	releaseStatus      func(status uintptr)
	createEnv          func(level int32, logID string, out *uintptr) uintptr
	createSessionOpts  func(out *uintptr) uintptr
	setOptimizedPath   func(opts uintptr, path string) uintptr
	setGraphOptLevel   func(opts uintptr, level int32) uintptr
	setIntraOpThreads  func(opts uintptr, n int32) uintptr
	setInterOpThreads  func(opts uintptr, n int32) uintptr
	addConfigEntry     func(opts uintptr, key, value string) uintptr
	releaseSessionOpts func(opts uintptr)
	createSession      func(env uintptr, model string, opts uintptr, out *uintptr) uintptr
	createSessionBytes func(env uintptr, data unsafe.Pointer, n uintptr, opts uintptr, out *uintptr) uintptr
	releaseSession     func(s uintptr)
	createCPUMemInfo   func(alloc, mem int32, out *uintptr) uintptr
	releaseMemInfo     func(m uintptr)
	createTensor       func(mem uintptr, data unsafe.Pointer, bytes uintptr, shape *int64, dims uintptr, typ int32, out *uintptr) uintptr
	releaseValue       func(v uintptr)
	run                func(s, runOpts uintptr, inNames **byte, in *uintptr, nIn uintptr, outNames **byte, nOut uintptr, out *uintptr) uintptr
}

var (
	loadMu sync.Mutex
	loaded *Runtime
)

// Load opens the ONNX Runtime library at path and creates its environment.
// A process holds one runtime: loading the same file again (by any path)
// returns it, and loading another file is an error.
func Load(path string) (*Runtime, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	// A symlink to the loaded file is the same library.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if err := checkWhole(path); err != nil {
		return nil, fmt.Errorf("load onnx runtime %s: %w", path, err)
	}
	if loaded != nil {
		if loaded.path != path {
			return nil, fmt.Errorf("onnx runtime already loaded from %s, cannot also load %s", loaded.path, path)
		}
		return loaded, nil
	}
	r, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("load onnx runtime %s: %w", path, err)
	}
	loaded = r
	return r, nil
}

func open(path string) (*Runtime, error) {
	lib, err := dlopen(path)
	if err != nil {
		return nil, err
	}
	sym, err := dlsym(lib, "OrtGetApiBase")
	if err != nil {
		return nil, fmt.Errorf("not an onnx runtime library: %w", err)
	}
	var getAPIBase func() *apiBase
	registerFunc(&getAPIBase, sym)
	base := getAPIBase()
	if base == nil || base.getAPI == 0 || base.getVersionString == 0 {
		return nil, errors.New("OrtGetApiBase returned no table")
	}
	var versionString func() string
	registerFunc(&versionString, base.getVersionString)
	r := &Runtime{path: path, version: versionString()}
	var getAPI func(version uint32) *[tableLen]uintptr
	registerFunc(&getAPI, base.getAPI)
	table := getAPI(apiVersion)
	if table == nil {
		return nil, fmt.Errorf("version %s does not serve C API version %d (need ONNX Runtime 1.17 or newer)", r.version, apiVersion)
	}
	r.bind(table)
	if err := r.check(r.createEnv(loggingLevelFatal, "tmem", &r.env)); err != nil {
		return nil, fmt.Errorf("create environment: %w", err)
	}
	if err := r.check(r.createCPUMemInfo(arenaAllocator, memTypeDefault, &r.cpuMem)); err != nil {
		return nil, fmt.Errorf("cpu memory info: %w", err)
	}
	return r, nil
}

// bind turns the table's entries into Go functions.
func (r *Runtime) bind(t *[tableLen]uintptr) {
	registerFunc(&r.errorMessage, t[idxGetErrorMessage])
	registerFunc(&r.releaseStatus, t[idxReleaseStatus])
	registerFunc(&r.createEnv, t[idxCreateEnv])
	registerFunc(&r.createSessionOpts, t[idxCreateSessionOptions])
	registerFunc(&r.setOptimizedPath, t[idxSetOptimizedModelFilePath])
	registerFunc(&r.setGraphOptLevel, t[idxSetSessionGraphOptimizationLevel])
	registerFunc(&r.setIntraOpThreads, t[idxSetIntraOpNumThreads])
	registerFunc(&r.setInterOpThreads, t[idxSetInterOpNumThreads])
	registerFunc(&r.addConfigEntry, t[idxAddSessionConfigEntry])
	registerFunc(&r.releaseSessionOpts, t[idxReleaseSessionOptions])
	registerFunc(&r.createSession, t[idxCreateSession])
	registerFunc(&r.createSessionBytes, t[idxCreateSessionFromArray])
	registerFunc(&r.releaseSession, t[idxReleaseSession])
	registerFunc(&r.createCPUMemInfo, t[idxCreateCPUMemoryInfo])
	registerFunc(&r.releaseMemInfo, t[idxReleaseMemoryInfo])
	registerFunc(&r.createTensor, t[idxCreateTensorWithDataAsOrtValue])
	registerFunc(&r.releaseValue, t[idxReleaseValue])
	registerFunc(&r.run, t[idxRun])
}

// check turns an OrtStatus into an error and frees it.
func (r *Runtime) check(status uintptr) error {
	if status == 0 {
		return nil
	}
	msg := r.errorMessage(status)
	r.releaseStatus(status)
	return errors.New(msg)
}

// Path is the library the runtime was loaded from.
func (r *Runtime) Path() string { return r.path }

// Version is the runtime's own version string, e.g. "1.23.2".
func (r *Runtime) Version() string { return r.version }
