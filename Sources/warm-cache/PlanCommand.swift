import ArgumentParser
import Foundation
import WarmCacheBuilder

/// `warm-cache plan manifest.yml`: validates and expands the manifest without any network or pixels.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Validate the manifest and show the work it describes (no network, nothing written).")

    @OptionGroup var manifest: ManifestArgument

    @Flag(help: "Print the full plan as JSON: every source with its variants.")
    var json = false

    @Flag(help: "List every source and variant, not just the totals.")
    var list = false

    @OptionGroup var shard: ShardOption

    @Option(help: "Print how many sources and variants each of N shards would warm.")
    var shards: Int?

    @OptionGroup var logging: QuietOption

    func validate() throws {
        if shards != nil, shard.shard != nil { throw ValidationError("give --shard or --shards, not both") }
        if let shards, !(1...Shard.maximumCount).contains(shards) {
            throw ValidationError("--shards must be between 1 and \(Shard.maximumCount)")
        }
    }

    func run() throws {
        var plan = try manifest.load(command: "plan", quiet: logging.quiet)
        if let shards {
            try printShards(plan, count: shards)
            return
        }
        let whole = plan.sources.count
        if let shard = try shard.resolve() {
            plan = plan.restricted(to: shard)
        }
        if json {
            try Console.json(VersionedJSON(plan, version: JSONVersion.plan))
            return
        }
        Console.line("\(plan.manifestURL.path) → \(plan.output.path)")
        if let shard = plan.shard {
            Console.line("shard \(shard): \(plan.sources.count) of the manifest's \(CountText.of(whole, "source"))")
        }
        Console.line(plan.summary.description)
        guard list else { return }
        for source in plan.sources {
            Console.line("\(source.identifier.rawValue)  (\(source.manifestLocation))")
            for variant in source.variants {
                let request = variant.request
                let box = "\(request.width.map(String.init) ?? "_")x\(request.height.map(String.init) ?? "_")"
                Console.line("  \(variant.preset): \(box) @\(request.scale)x \(request.format)")
            }
        }
    }

    /// One line per shard, then the spread, e.g. `shard 2/4: 2513 sources, 15078 variants`.
    private func printShards(_ plan: WarmPlan, count: Int) throws {
        let parts = try plan.shards(count)
        if json {
            let shards = parts.map { ShardCount(shard: $0.shard!.description, sources: $0.sources.count,
                                                variants: $0.summary.variantCount) }
            try Console.json(VersionedJSON(ShardCounts(shards: shards), version: JSONVersion.planShards))
            return
        }
        Console.line("\(plan.manifestURL.path): \(CountText.of(plan.sources.count, "source")) in \(CountText.of(count, "shard"))")
        for part in parts {
            Console.line("shard \(part.shard!): \(CountText.of(part.sources.count, "source")), "
                + CountText.of(part.summary.variantCount, "variant"))
        }
        let sizes = parts.map(\.sources.count)
        if let smallest = sizes.min(), let largest = sizes.max(), !plan.sources.isEmpty {
            let mean = Double(plan.sources.count) / Double(count)
            Console.line(String(format: "largest shard %.1f%% above the mean, smallest %.1f%% below",
                                (Double(largest) / mean - 1) * 100, (1 - Double(smallest) / mean) * 100))
        }
    }

    /// `plan --shards N --json`: an object, so that it carries its version like every output.
    private struct ShardCounts: Encodable {
        var shards: [ShardCount]
    }

    private struct ShardCount: Encodable {
        var shard: String
        var sources: Int
        var variants: Int
    }
}
