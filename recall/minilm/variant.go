package minilm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/cpu"

	"github.com/tmemhq/tmem/layout"
)

// Model variants 'tmem model pull --variant' installs.
const (
	// VariantFP32 is the fp32 export, model.onnx: both backends run it.
	VariantFP32 = "fp32"
	// VariantInt8 is an int8 export for the CPU's vector instructions:
	// only ONNX Runtime runs it.
	VariantInt8 = "int8"
)

// fp32Model is the fp32 export's file name in a model folder.
const fp32Model = "model.onnx"

// variantFile, in the model folder, names the model file to run when it is
// not model.onnx. Pull writes it and removes it again for fp32.
const variantFile = ".tmem-variant"

// Int8File is an upstream int8 export built for one CPU feature.
type Int8File struct {
	// Feature is the instruction set it is quantized for.
	Feature string
	File
}

// CPUFeatures are the CPU features the int8 exports are built for.
type CPUFeatures struct {
	AVX512VNNI bool
	AVX2       bool
}

// HostCPU reports the running CPU's features.
func HostCPU() CPUFeatures {
	return CPUFeatures{AVX512VNNI: cpu.X86.HasAVX512VNNI, AVX2: cpu.X86.HasAVX2}
}

func (c CPUFeatures) has(feature string) bool {
	switch feature {
	case "avx512_vnni":
		return c.AVX512VNNI
	case "avx2":
		return c.AVX2
	}
	return false
}

// SelectInt8 picks the first of m's int8 exports whose feature the CPU has
// (they are listed best first).
func (m Manifest) SelectInt8(c CPUFeatures) (File, error) {
	for _, f := range m.Int8 {
		if c.has(f.Feature) {
			return f.File, nil
		}
	}
	return File{}, errors.New("no int8 export fits this CPU (they need AVX-512 VNNI or AVX2); keep the fp32 model")
}

// Variant returns m with its model file replaced by the variant's: fp32
// keeps model.onnx, int8 takes the export SelectInt8 picks for c.
func (m Manifest) Variant(variant string, c CPUFeatures) (Manifest, error) {
	switch variant {
	case "", VariantFP32:
		return m, nil
	case VariantInt8:
		f, err := m.SelectInt8(c)
		if err != nil {
			return m, err
		}
		return m.withModel(f), nil
	}
	return m, fmt.Errorf("unknown model variant %q (want %s or %s)", variant, VariantFP32, VariantInt8)
}

// withModel returns m with f in place of model.onnx.
func (m Manifest) withModel(f File) Manifest {
	files := make([]File, 0, len(m.Files))
	for _, g := range m.Files {
		if g.Name == fp32Model {
			g = f
		}
		files = append(files, g)
	}
	m.Files = files
	return m
}

// modelFile is the name of the manifest's model file.
func (m Manifest) modelFile() string {
	for _, f := range m.Files {
		if strings.HasSuffix(f.Name, ".onnx") {
			return f.Name
		}
	}
	return fp32Model
}

// forFolder returns the manifest the model folder dir was installed with:
// the int8 export its variant file names in place of model.onnx.
func (m Manifest) forFolder(dir string) (Manifest, error) {
	name, err := activeModel(dir)
	if err != nil || name == fp32Model {
		return m, err
	}
	for _, f := range m.Int8 {
		if f.Name == name {
			return m.withModel(f.File), nil
		}
	}
	return m.withModel(File{Name: name, Path: "onnx/" + name}), nil
}

// activeModel is the model file to run in dir: the one its variant file
// names, else model.onnx.
func activeModel(dir string) (string, error) {
	b, err := readRegular(filepath.Join(dir, variantFile))
	if errors.Is(err, fs.ErrNotExist) {
		return fp32Model, nil
	}
	if err != nil {
		return "", fmt.Errorf("model variant: %w", err)
	}
	name := strings.TrimSpace(string(b))
	if name == "" || filepath.Base(name) != name || !strings.HasSuffix(name, ".onnx") {
		return "", fmt.Errorf("%s: %q is not a model file name; run 'tmem model pull' to reinstall", filepath.Join(dir, variantFile), name)
	}
	return name, nil
}

// setActiveModel records name as the model file to run in dir.
func setActiveModel(dir, name string) error {
	path := filepath.Join(dir, variantFile)
	if name == fp32Model {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("model variant: %w", err)
		}
		return nil
	}
	if err := layout.WriteAtomic(path, []byte(name+"\n")); err != nil {
		return fmt.Errorf("model variant: %w", err)
	}
	return nil
}
