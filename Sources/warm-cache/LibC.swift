#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

// The C library, for the whole target: Glibc on Linux, Musl with the static Linux SDK, Darwin on
// Apple platforms. Foundation re-exports that same module on each of them, so the target's files
// call `open`, `fsync` or `errno` with `import Foundation` alone and never import it themselves.
// What differs between the platforms belongs here, once (nothing does yet); the import is internal, so
// nothing of the C library enters the target's API through this file.
