// Package lazyvips loads libvips when the first image needs it, not when
// the process starts.
//
// govips links libvips (`#cgo pkg-config: vips`), so the dynamic loader
// maps libvips.so.42 and its hundred libraries into every process before
// main runs: on Debian 12, 24 ms of CPU and 21 MiB of resident memory a
// process, measured against a C program that links nothing. Most
// processes never need them: a `worker sanitize`, `check`, `replay` or
// `audit` of a history whose images all fit, or that has none.
//
// On linux/amd64 this package defines every libvips function govips calls
// (symbols_linux_amd64.h, trampolines_linux_amd64.S, both written by
// gen.go) as a hidden trampoline. The program's own definitions take
// govips' references, so the linker, which links a library only as
// needed (Debian's gcc passes --as-needed by default; the package's test
// fails on a toolchain that does not), leaves libvips.so.42 out of the
// binary's needed libraries. A trampoline's first
// call loads libvips.so.42 with dlopen, looks every function up once, and
// jumps on; later calls jump at once. The trampoline saves the argument
// registers around the load, so variadic calls (most of libvips') and
// floating-point arguments pass through unchanged.
//
// Two functions are answered without loading: vips_version and
// vips_version_string, which govips calls while its package is
// initialised. They give the version of the libvips headers the binary was
// built with (the image's build and run time use the same Debian package).
//
// A process that must have libvips calls Load at start: `worker run` does,
// so a missing libvips stops the worker at start, with dlerror's message,
// not at its first image. images.Startup calls it too. Elsewhere than
// linux/amd64 the package is empty, Load does nothing, and govips links
// libvips as before.
//
// May import: no package of this module.
package lazyvips

//go:generate go run gen.go
