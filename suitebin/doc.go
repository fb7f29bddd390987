// Package suitebin builds a package's test binary once and reuses it: the
// binary is kept in a cache directory under a key that hashes everything
// the build reads — the toolchain and the settings of the go command that
// change what it builds, the module's go.mod and go.sum, and every file of
// every package directory of the module — so a binary is reused only while
// none of those changed, and an edit of any of them builds a new one.
// `waitsim run` and the mutation baseline run the table through it instead
// of `go test`, which links the binary again on every run.
//
// The one entry point is Binary.
//
// Rules:
//   - A binary is reused only while none of its inputs changed; a build
//     whose inputs changed during it is used once and not kept.
package suitebin
