// WarmImage drawn by SwiftUI's ImageRenderer: macOS only, run by the GitHub workflow. On Linux this
// target has no tests.
