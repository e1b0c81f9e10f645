import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// The same input always gives the same bytes, however many renders run at once.
@Suite struct ConcurrencyTests {
    static let specs: [VariantSpec] = [
        VariantSpec(width: 64, height: nil, format: .jpeg),
        VariantSpec(width: 64, height: nil, format: .webp),
        VariantSpec(width: 48, height: 48, fit: .cover(.attention), format: .png),
        VariantSpec(width: 40, height: nil, format: .avif),
        VariantSpec(width: 40, height: 40, fit: .contain(background: .transparent), format: .webp,
                    processors: [.roundCorners(radius: 6), .blur(sigma: 0.8)]),
    ]
    static let names = ["chelsea.png", "coffee.png", "rocket.jpg", "camera.png", "coins.png"]

    @Test func concurrentRendersMatchSerialOnes() async throws {
        let engine = Fixtures.engine
        let inputs = try Self.names.map { ($0, try Fixtures.example($0)) }
        var serial: [String: [Data]] = [:]
        for (name, data) in inputs {
            serial[name] = try engine.open(data, name: name).render(Self.specs).map(\.data)
        }
        let concurrent = try await withThrowingTaskGroup(of: (String, [Data], ImagePlaceholder).self) { group in
            for round in 0..<3 {
                for (name, data) in inputs {
                    group.addTask {
                        let source = try engine.open(data, name: name)
                        let result = try source.render(round == 0 ? Self.specs : Self.specs.reversed(), placeholder: .all)
                        let bytes = result.variants.map(\.data)
                        return (name, round == 0 ? bytes : bytes.reversed(), result.placeholder)
                    }
                }
            }
            var results: [(String, [Data], ImagePlaceholder)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(concurrent.count == 15)
        for (name, bytes, _) in concurrent {
            #expect(bytes == serial[name], "\(name) differs when rendered concurrently")
        }
        let placeholders = Dictionary(grouping: concurrent, by: \.0).mapValues { Set($0.map(\.2)) }
        #expect(placeholders.values.allSatisfy { $0.count == 1 })
    }

    @Test func engineAndSourcesAreSendable() async throws {
        let source = try Fixtures.engine.open(Fixtures.example("rocket.jpg"), name: "rocket.jpg")
        let first = try await Task.detached { try source.render([VariantSpec(width: 50, height: nil, format: .png)]) }.value
        let second = try source.render([VariantSpec(width: 50, height: nil, format: .png)])
        #expect(first == second)
    }
}
