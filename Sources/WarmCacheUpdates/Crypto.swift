// The cryptography WarmCacheUpdates uses, from the one place that knows where it comes from:
// CryptoKit on Apple platforms, so an app resolves no package for it, and swift-crypto (the
// package's `SwiftCrypto` trait, which the `Builder` trait enables) everywhere else. swift-crypto
// offers CryptoKit's API, so the rest of the target reads the same on both.
#if canImport(CryptoKit)
internal import CryptoKit

typealias SHA256 = CryptoKit.SHA256
typealias Curve25519 = CryptoKit.Curve25519
#elseif SwiftCrypto
internal import Crypto

typealias SHA256 = Crypto.SHA256
typealias Curve25519 = Crypto.Curve25519
#else
#error("WarmCacheUpdates needs swift-crypto where CryptoKit is missing: enable the SwiftCrypto trait of the WarmCache package")
#endif
