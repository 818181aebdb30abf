// Package dynlib owns dlopen for commlab: it is the only package that
// includes dlfcn.h. probes/cuda and probes/nccl describe the library they
// want (a Spec: the sonames or paths to try, an environment variable that
// forces one, the symbols a candidate must define) and get back a Library
// whose symbols they bind into the function pointers their cgo preambles
// declare (Bind, BindOptional). The libraries stay loaded for the life of
// the process, with RTLD_NOW | RTLD_GLOBAL, so a library loaded later (NCCL)
// resolves against the CUDA runtime already loaded.
//
// Failures read plainly and wrap probes.ErrUnavailable, so callers branch
// with errors.Is: a *NotFoundError says which library is missing, every
// name tried and, where it is more than "no such file", dlerror's text; a
// *MissingSymbolError names the symbol and the file that lacks it. Their
// text carries no package prefix: the caller adds its own ("cuda: CUDA
// runtime unavailable: ..."), as os.PathError leaves "os" to its caller.
//
// It plays the part go-nvml's pkg/dl plays for NVML (probes/nvml goes
// through go-nvml and so through that one). It does not call into the
// libraries: the typedefs and call wrappers stay with the package that
// knows the library's ABI.
package dynlib
