import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

@Suite struct ShardTests {
    static func identifiers(_ count: Int, prefix: String = "https://cdn.example.com/products/") -> [SourceIdentifier] {
        (0..<count).map { SourceIdentifier("\(prefix)\($0).jpg") }
    }

    @Test func parsesOneBasedIndexOverCount() throws {
        let shard = try Shard(parsing: "2/4")
        #expect(shard.index == 2 && shard.count == 4)
        #expect(shard.description == "2/4")
        #expect(try Shard(parsing: "1/1").count == 1)
        for bad in ["0/4", "5/4", "2", "2/", "/4", "a/b", "2/4/1", "-1/4", "1/0", ""] {
            #expect(throws: ShardError.self, "\(bad)") { try Shard(parsing: bad) }
        }
        let error = try #require(throws: ShardError.self) { try Shard(parsing: "5/4") }
        #expect(error.description.contains("numbered 1 to 4"))
    }

    @Test func everySourceIsInExactlyOneShard() throws {
        let sources = Self.identifiers(2_000)
        for count in [1, 3, 4, 7] {
            let shards = try (1...count).map { try Shard(index: $0, count: count) }
            for source in sources {
                #expect(shards.filter { $0.contains(source) }.count == 1)
            }
        }
    }

    /// The figures in docs/ci.md: on 100,000 identifiers, 4 shards stay within 1.3 % of the mean
    /// and 16 within 2.1 %.
    @Test func shardsOf100000IdentifiersAreBalanced() {
        let sources = Self.identifiers(100_000)
        for count in [4, 16] {
            var sizes = [Int](repeating: 0, count: count)
            for source in sources {
                sizes[Shard.index(of: source, count: count) - 1] += 1
            }
            let mean = 100_000.0 / Double(count)
            let spread = sizes.map { abs(Double($0) - mean) / mean }.max()!
            // Binomial noise is about 1/sqrt(mean) (0.6 % for 4 shards, 1.3 % for 16): allow 3x.
            #expect(spread < 3 / mean.squareRoot(), "shard sizes \(sizes)")
        }
    }

    @Test func addingOrRemovingSourcesMovesNoOtherSource() {
        let before = Self.identifiers(1_000)
        let added = before + Self.identifiers(200, prefix: "https://other.example.com/")
        let removed = Array(before.dropFirst(300))
        for source in before {
            let shard = Shard.index(of: source, count: 5)
            #expect(Shard.index(of: source, count: 5) == shard)  // depends on nothing but the identifier
        }
        // The assignment of a source never looks at the others: compare plans built from each list.
        let plan = { (sources: [SourceIdentifier]) in
            Dictionary(uniqueKeysWithValues: sources.map { ($0, Shard.index(of: $0, count: 5)) })
        }
        let a = plan(before), b = plan(added), c = plan(removed)
        #expect(before.allSatisfy { a[$0] == b[$0] })
        #expect(removed.allSatisfy { a[$0] == c[$0] })
    }

    @Test func growingTheMatrixMovesOnlyAShareIntoTheNewShard() {
        let sources = Self.identifiers(20_000)
        var moved = 0
        for source in sources {
            let old = Shard.index(of: source, count: 4)
            let new = Shard.index(of: source, count: 5)
            if old != new {
                moved += 1
                #expect(new == 5, "a moved source goes to the new shard")
            }
        }
        // About 1/5 move (4,000); plain modulo would move about 4/5.
        #expect((3_500...4_500).contains(moved), "\(moved) moved")
    }

    @Test func autoReadsGitLabBuildkiteAndCircleCIWithTheirBases() throws {
        #expect(try Shard(environment: ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4"]) == Shard(index: 1, count: 4))
        #expect(try Shard(environment: ["CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "4"]) == Shard(index: 4, count: 4))
        #expect(try Shard(environment: ["BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "3"])
                == Shard(index: 1, count: 3))
        #expect(try Shard(environment: ["BUILDKITE_PARALLEL_JOB": "2", "BUILDKITE_PARALLEL_JOB_COUNT": "3"])
                == Shard(index: 3, count: 3))
        #expect(try Shard(environment: ["CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "2"]) == Shard(index: 1, count: 2))
        #expect(try Shard(environment: ["CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "2"]) == Shard(index: 2, count: 2))
        // GitLab sets CI_NODE_TOTAL=1 (and no index) for a job without `parallel:`.
        #expect(try Shard(environment: ["CI_NODE_TOTAL": "1"]) == Shard(index: 1, count: 1))
    }

    @Test func autoFailsClearlyWithoutVariablesOrWithBadOnes() throws {
        let none = try #require(throws: ShardError.self) { try Shard(environment: ["CI": "true"]) }
        for name in ["CI_NODE_INDEX", "CI_NODE_TOTAL", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT",
                     "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", "--shard I/N"] {
            #expect(none.description.contains(name), "\(name) in: \(none)")
        }
        let missingCount = try #require(throws: ShardError.self) {
            try Shard(environment: ["CIRCLE_NODE_INDEX": "1"])
        }
        #expect(missingCount.description.contains("CIRCLE_NODE_TOTAL is not set"))
        let zeroBasedGitLab = try #require(throws: ShardError.self) {
            try Shard(environment: ["CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "4"])
        }
        #expect(zeroBasedGitLab.description.contains("counting from 1"))
    }

    @Test func restrictedPlansPartitionTheManifestAndKeepItsFingerprint() throws {
        let sources = Self.identifiers(300).map { identifier in
            PlannedSource(identifier: identifier, location: .remote(URL(string: identifier.rawValue)!), variants: [],
                          placeholders: .averageColor,
                          manifestLocation: ManifestLocation(file: "m.yml", line: 1, column: 1))
        }
        let plan = WarmPlan(manifestURL: URL(fileURLWithPath: "/m.yml"), output: URL(fileURLWithPath: "/o.warmcache"),
                            fetch: FetchSettings(), sources: sources)
        let parts = try plan.shards(3)
        #expect(parts.map { $0.shard?.description } == ["1/3", "2/3", "3/3"])
        #expect(parts.allSatisfy { $0.fingerprint == plan.fingerprint })
        #expect(parts.flatMap(\.sources).map(\.identifier).sorted() == plan.sources.map(\.identifier).sorted())
        for part in parts {
            #expect(plan.restricted(to: part.shard!) == part)
        }
        var other = plan
        other.sources.removeLast()
        #expect(WarmPlan(manifestURL: plan.manifestURL, output: plan.output, fetch: plan.fetch,
                         sources: other.sources).fingerprint != plan.fingerprint)
    }

    /// The fingerprint follows what decides the bundle (identifiers, placeholders, every variant of
    /// every source) and nothing else (the order of entries).
    @Test func theManifestFingerprintFollowsEveryVariantOfEverySourceAndNotTheOrder() throws {
        let thumb = PlannedVariant(preset: "thumb", request: VariantRequest(width: 64, height: 64, format: .fixed(.webp)))
        let card = PlannedVariant(preset: "card", request: VariantRequest(width: 320, height: nil, format: .auto()))
        func fingerprint(_ variants: [[PlannedVariant]], placeholders: PlaceholderKinds = .averageColor) -> String {
            let sources = zip(Self.identifiers(variants.count), variants).map { identifier, variants in
                PlannedSource(identifier: identifier, location: .remote(URL(string: identifier.rawValue)!),
                              variants: variants, placeholders: placeholders,
                              manifestLocation: ManifestLocation(file: "m.yml", line: 1, column: 1))
            }
            return WarmPlan(manifestURL: URL(fileURLWithPath: "/m.yml"), output: URL(fileURLWithPath: "/o.warmcache"),
                            fetch: FetchSettings(), sources: sources).fingerprint
        }
        let base = fingerprint([[thumb, card], [thumb, card], [thumb]])
        #expect(fingerprint([[thumb, card], [thumb, card], [thumb]]) == base)
        var wider = card
        wider.request.width = 321
        #expect(fingerprint([[thumb, card], [thumb, wider], [thumb]]) != base, "one source's variant changed")
        #expect(fingerprint([[thumb, card], [thumb], [thumb]]) != base, "one source lost a variant")
        #expect(fingerprint([[thumb, card], [thumb, card], [card]]) != base)
        #expect(fingerprint([[thumb, card], [thumb, card], [thumb]], placeholders: .blurHash) != base)
        let sources = Self.identifiers(3).map { identifier in
            PlannedSource(identifier: identifier, location: .remote(URL(string: identifier.rawValue)!),
                          variants: [thumb], placeholders: .averageColor,
                          manifestLocation: ManifestLocation(file: "m.yml", line: 1, column: 1))
        }
        let plan = WarmPlan(manifestURL: URL(fileURLWithPath: "/m.yml"), output: URL(fileURLWithPath: "/o.warmcache"),
                            fetch: FetchSettings(), sources: sources)
        #expect(WarmPlan(manifestURL: plan.manifestURL, output: plan.output, fetch: plan.fetch,
                         sources: sources.reversed()).fingerprint == plan.fingerprint)
    }
}
