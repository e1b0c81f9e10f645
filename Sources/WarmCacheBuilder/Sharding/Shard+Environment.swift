import Foundation
import WarmCache

extension Shard {
    /// A CI system's variables for a job's place among its parallel copies.
    public struct CIVariables: Sendable {
        public let system: String
        public let index: String
        public let count: String
        /// The value `index` has in the first job: 1 (GitLab) or 0 (Buildkite, CircleCI).
        public let base: Int
    }

    /// The CI variables `--shard auto` reads, in the order it tries them.
    ///
    /// - GitLab `parallel: N`: `CI_NODE_INDEX` (1 to N) and `CI_NODE_TOTAL`.
    /// - Buildkite `parallelism: N`: `BUILDKITE_PARALLEL_JOB` (0 to N−1) and `BUILDKITE_PARALLEL_JOB_COUNT`.
    /// - CircleCI `parallelism: N`: `CIRCLE_NODE_INDEX` (0 to N−1) and `CIRCLE_NODE_TOTAL`.
    public static let ciVariables: [CIVariables] = [
        CIVariables(system: "GitLab", index: "CI_NODE_INDEX", count: "CI_NODE_TOTAL", base: 1),
        CIVariables(system: "Buildkite", index: "BUILDKITE_PARALLEL_JOB", count: "BUILDKITE_PARALLEL_JOB_COUNT",
                    base: 0),
        CIVariables(system: "CircleCI", index: "CIRCLE_NODE_INDEX", count: "CIRCLE_NODE_TOTAL", base: 0),
    ]

    /// This job's shard, from the first CI system in ``ciVariables`` whose index variable is set.
    ///
    /// A job that is not parallel has no index variable (GitLab still sets `CI_NODE_TOTAL=1`), so
    /// when no index is set but a count of 1 is, the job is the only shard, `1/1`.
    public init(environment: [String: String]) throws(ShardError) {
        func number(_ name: String, _ system: CIVariables) throws(ShardError) -> Int {
            guard let text = environment[name], let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ShardError("--shard auto: \(system.system)'s \(system.index) is set but \(name) is "
                    + "\(environment[name].map { "'\($0)', not a number" } ?? "not set"); "
                    + "set both, or pass --shard I/N")
            }
            return value
        }
        for system in Shard.ciVariables where environment[system.index] != nil {
            let index = try number(system.index, system)
            let count = try number(system.count, system)
            do {
                try self.init(index: index - system.base + 1, count: count)
            } catch {
                throw ShardError("--shard auto: \(system.index)=\(index) and \(system.count)=\(count) "
                    + "(\(system.system), counting from \(system.base)) give no valid shard: \(PlainReason.of(error))")
            }
            return
        }
        if Shard.ciVariables.contains(where: { environment[$0.count] == "1" }) {
            try self.init(index: 1, count: 1)
            return
        }
        let looked = Shard.ciVariables.map { "\($0.index)/\($0.count) (\($0.system), from \($0.base))" }
        throw ShardError("--shard auto: this job has no shard variables: looked for "
            + looked.joined(separator: ", ")
            + ". Run it as a parallel job (GitLab 'parallel: N', Buildkite or CircleCI 'parallelism: N'), "
            + "or pass --shard I/N (on GitHub Actions: --shard ${{ matrix.shard }}/N)")
    }
}
