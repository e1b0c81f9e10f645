import Foundation
import WarmCache

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

    /// Peak resident set size of this process so far, in MiB (a child's: ``Subprocess``).
    static func peakRSSMiB() -> Double {
        LibC.ownPeakRSSMiB()
    }

    /// The system's 1-, 5- and 15-minute load averages, e.g. `load 2.31 2.05 1.90`: on a shared
    /// machine, the context a wall-time figure needs.
    static func loadAverage() -> String {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) == 3 else { return "load unknown" }
        return "load " + loads.map { format($0, 2) }.joined(separator: " ")
    }

    /// Resident set size of this process now, in MiB (Linux: `/proc/self/statm`; elsewhere the peak).
    static func residentMiB() -> Double {
        guard let pages = LibC.residentPages() else { return peakRSSMiB() }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    static func format(_ value: Double, _ digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }
}
