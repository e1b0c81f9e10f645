import Foundation
import WarmCache

// The CLI's calls whose spelling differs between the platforms, with the Darwin and Linux
// branches side by side (the package's others: WarmCache's LibC.swift).

extension LibC {
    /// This executable's own path, to start copies of it (the imaging processes). Linux names it
    /// `/proc/self/exe` whatever `PATH` or a link said; elsewhere the path it was started by.
    static var executablePath: String {
        #if os(Linux)
        "/proc/self/exe"
        #else
        Bundle.main.executablePath ?? CommandLine.arguments[0]
        #endif
    }
}
