import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small measuring helpers shared by the benchmarks.
enum Measurement {
    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    /// Seconds spent in `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return Double(now() - start) / 1e9
    }

    /// Seconds spent in `body`.
    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = now()
        try await body()
        return Double(now() - start) / 1e9
    }

    /// The value at `fraction` (0...1) of sorted `values`.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))
        return sorted[index]
    }

    /// Peak resident set size of this process so far, in MiB.
    static func peakRSSMiB() -> Double {
        maxRSS(children: false)
    }

    /// Peak RSS of the largest finished child process, in MiB.
    static func peakChildRSSMiB() -> Double {
        maxRSS(children: true)
    }

    private static func maxRSS(children: Bool) -> Double {
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
        return Double(usage.ru_maxrss) / 1_048_576
        #else
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
        #endif
    }

    static func format(_ value: Double, _ digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }
}
