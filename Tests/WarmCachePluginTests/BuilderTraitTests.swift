import Testing

/// The plugin in a package that depends on WarmCache with `traits: []`: it names the trait to
/// enable in one line, before any build (the tool's graph lacks the trait's packages) or after
/// one that failed for that reason.
struct BuilderTraitTests {
    @Test("the tool's dependencies without the trait's packages mean the trait is off")
    func detectedFromTheGraph() {
        // What PackagePlugin lists for the `warm-cache` target with `traits: []`, and with the defaults.
        #expect(BuilderTrait.isOff(toolDependencies: ["WarmCacheBuilder", "WarmCacheImaging", "WarmCacheUpdates"]))
        #expect(!BuilderTrait.isOff(toolDependencies: ["WarmCacheBuilder", "WarmCacheImaging", "WarmCacheUpdates",
                                                       "ArgumentParser", "Logging"]))
    }

    @Test("a failed build whose errors come from the missing trait is explained; others are not")
    func detectedFromTheLog() {
        let linux = """
            Sources/WarmCacheUpdates/Crypto.swift:17:2: error: WarmCacheUpdates needs swift-crypto where CryptoKit is \
            missing: enable the SwiftCrypto trait of the WarmCache package
            """
        #expect(BuilderTrait.explainsFailure(linux))
        #expect(BuilderTrait.explainsFailure("Sources/WarmCacheBuilder/Manifest/YAML.swift:1:8: error: no such module 'Yams'"))
        #expect(!BuilderTrait.explainsFailure("Sources/App/main.swift:3:1: error: cannot find 'foo' in scope"))
    }

    @Test("the advice is one line naming the trait and how to turn it on")
    func advice() {
        #expect(!BuilderTrait.advice.contains("\n"))
        #expect(BuilderTrait.advice.contains("\"Builder\" trait") && BuilderTrait.advice.contains("traits: [.defaults]"))
        #expect(!BuilderTrait.advice.contains("SwiftCrypto"), "the trait to enable is Builder, not SwiftCrypto")
    }
}
