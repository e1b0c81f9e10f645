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

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let plan = try manifest.load(command: "plan", quiet: logging.quiet)
        if json {
            try Console.json(plan)
            return
        }
        Console.line("\(plan.manifestURL.path) → \(plan.output.path)")
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
}
