import ArgumentParser
import Foundation
import WarmCacheBuilder
import WarmCache

/// `--shard I/N` or `--shard auto`, shared by `warm` and `plan`.
struct ShardOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Only the sources of shard I of N (1-based), or 'auto' to read the CI's parallel job variables.",
        discussion: "A source's shard depends only on its identifier. 'auto' reads GitLab's CI_NODE_INDEX/"
            + "CI_NODE_TOTAL (from 1), Buildkite's BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT or "
            + "CircleCI's CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL (from 0).",
        valueName: "I/N|auto"))
    var shard: String?

    func validate() throws {
        if let shard, shard != "auto" {
            do {
                _ = try Shard(parsing: shard)
            } catch {
                throw ValidationError("--shard: \(PlainReason.of(error))")
            }
        }
    }

    /// The chosen shard, or `nil` when `--shard` was not given; exit 64 when `auto` finds no CI variables.
    func resolve() throws -> Shard? {
        guard let shard else { return nil }
        do {
            return shard == "auto" ? try Shard(environment: ProcessInfo.processInfo.environment)
                : try Shard(parsing: shard)
        } catch {
            Console.error(error.description)
            throw ExitCode.validationFailure
        }
    }
}
