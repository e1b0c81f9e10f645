import ArgumentParser

/// Benchmarks that print figures (never timed tests). Run in release:
/// `swift run -c release warm-cache-bench <subcommand>`.
@main
struct WarmCacheBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm-cache-bench",
        abstract: "WarmCache benchmarks: each prints its figures.",
        subcommands: [LookupBenchmark.self, ImagingBenchmark.self, WarmBenchmark.self, ScaleBenchmark.self,
                      ReuseCheckBenchmark.self, ShardsBenchmark.self, MergeBenchmark.self, BytesBenchmark.self,
                      AVIFEncodersBenchmark.self, LoaderBenchmark.self, ScorerMemoryBenchmark.self]
    )
}

