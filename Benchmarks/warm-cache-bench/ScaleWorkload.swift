import ArgumentParser
import Foundation
import WarmCacheBuilder

/// What `warm-cache-bench scale` warms: generated small JPEGs or a folder of photos, served from
/// one directory, with the manifest and the pyvips peer commands that match.
struct ScaleWorkload: CustomStringConvertible {
    /// A pyvips script the warm is compared with: `pyvips-peer.py <command>`.
    struct Peer {
        let command: String
        /// A column heading's worth.
        let label: String
        let description: String
    }

    /// The directory the loopback server serves.
    let directory: URL
    /// File names in serving order.
    private let files: [String]
    private let presets: String
    let peers: [Peer]
    let isPhotos: Bool
    let description: String

    /// The first `count` files (photos repeat under distinct names when there are fewer).
    func names(_ count: Int) -> [String] {
        Array(files.prefix(count))
    }

    func manifest(urlsFile: String) -> String {
        """
        version: 1
        output: Out/Scale.warmcache
        \(presets)
        images:
          - urls_from: \(urlsFile)
            presets: [\(presetNames)]

        """
    }

    private var presetNames: String {
        isPhotos ? "w1024, w512, w256, w128, w64" : "thumb"
    }

    /// `count` distinct 320x240 JPEGs, made once by the pyvips script (about 20 KB each) and
    /// reused by later runs; one preset `{ width: 64, height: 64, fit: cover }` @1x and @2x,
    /// JPEG, ThumbHash placeholder.
    static func generated(count: Int, workDir: String) throws -> ScaleWorkload {
        let directory = URL(fileURLWithPath: workDir).appendingPathComponent("images")
        let names = (0..<count).map { String(format: "%08d.jpg", $0) }
        let present = Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        if names.contains(where: { !present.contains($0) }) {
            print("generating \(count) images in \(directory.path) (once; later runs reuse them)...")
            let seconds = try PyvipsPeer.generate(into: directory, count: count)
            print("generated in \(Measurement.format(seconds, 1)) s")
        }
        return ScaleWorkload(
            directory: directory, files: names,
            presets: """
                defaults:
                  formats: [jpeg]
                  quality: { jpeg: 80 }
                  scales: [1, 2]
                  placeholder: thumbhash
                presets:
                  thumb: { width: 64, height: 64, fit: cover }
                """,
            peers: [Peer(command: "thumbnails", label: "pyvips", description: "64x64 and 128x128 centre crops, JPEG")],
            isPhotos: false,
            description: "distinct 320x240 JPEGs; preset 64x64 cover @1x,@2x, jpeg, placeholder thumbhash")
    }

    /// The photos under `folder` (JPEG/PNG), linked into the served directory; 5 widths × JPEG+WebP.
    static func photos(in folder: String, maxBytes: Int, workDir: String) throws -> ScaleWorkload {
        let photos = try ImagingBenchmark.photos(in: folder, limit: 0).filter { maxBytes == 0 || $0.size <= maxBytes }
        guard !photos.isEmpty else { throw ValidationError("no photos under \(folder)") }
        let directory = URL(fileURLWithPath: workDir).appendingPathComponent("photos")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let names = try photos.enumerated().map { index, photo -> String in
            let name = String(format: "%05d.", index) + (photo.path as NSString).pathExtension.lowercased()
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(name).path,
                                                       withDestinationPath: photo.path)
            return name
        }
        let megabytes = Double(photos.map(\.size).reduce(0, +)) / 1e6
        return ScaleWorkload(
            directory: directory, files: names,
            presets: """
                defaults:
                  formats: [jpeg, webp]
                  quality: { jpeg: 80, webp: 80 }
                  scales: [1]
                  placeholder: none
                presets:
                  w1024: { width: 1024 }
                  w512: { width: 512 }
                  w256: { width: 256 }
                  w128: { width: 128 }
                  w64: { width: 64 }
                """,
            peers: [
                Peer(command: "cascade", label: "pyvips",
                     description: "decode once, widths 1024..64 cascaded, JPEG + WebP, libvips' default settings"),
                // The warm writes JPEG with optimised Huffman tables (2 % smaller, ~4 % more CPU) and
                // converts photos with a profile other than sRGB; this peer does the same work.
                Peer(command: "cascade-same-files", label: "pyvips, same files",
                     description: "the same, writing the files the warm writes: optimised JPEG Huffman "
                        + "tables, photos with a profile other than sRGB converted to sRGB"),
            ],
            isPhotos: true,
            description: "\(photos.count) photos (\(Measurement.format(megabytes)) MB) from \(folder); "
                + "5 widths x JPEG+WebP, placeholder none")
    }
}

/// `Benchmarks/pyvips-peer.py`: generates the images and runs the peer figures.
enum PyvipsPeer {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pyvips-peer.py")

    /// Makes the missing ones of `count` images; returns wall seconds.
    static func generate(into directory: URL, count: Int) throws -> Double {
        let outcome = try Subprocess.measure(try python(), [script.path, "generate", directory.path, String(count)],
                                             output: .inherit)
        guard outcome.succeeded else { throw ValidationError("pyvips-peer.py generate: \(outcome.summary)") }
        return outcome.seconds
    }

    /// Runs `command` over the first `count` files of `directory`; returns files per second of
    /// the script's process, from start to exit, as the warm's figure is timed (the script's own
    /// timer, which starts after Python and its imports are loaded, reads 0.04-0.05 s less on
    /// 40 photos). Python is started directly: a version manager's shim adds as much again.
    static func run(_ command: String, directory: URL, count: Int, processes: Int) throws -> Double {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pyvips-peer-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let outcome = try Subprocess.measure(try python(), [script.path, command, directory.path, String(count),
                                                            "--processes", String(processes)],
                                             output: .file(log))
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        // "<files> files <seconds> s <rate> files/s"
        guard outcome.succeeded, let line = text.split(separator: "\n").last(where: { $0.hasSuffix("files/s") }),
              let files = Double(line.split(separator: " ").first ?? "") else {
            throw ValidationError("pyvips-peer.py \(command): \(outcome.summary)\n\(text)")
        }
        return files / outcome.seconds
    }

    /// The Python interpreter `python3` on the PATH stands for (resolved once).
    private static func python() throws -> String {
        if let resolved = resolvedPython.withLock({ $0 }) { return resolved }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("python-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: log) }
        let outcome = try Subprocess.measure("/usr/bin/env", ["python3", "-c", "import sys; print(sys.executable)"],
                                             output: .file(log))
        let path = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard outcome.succeeded, !path.isEmpty else { throw ValidationError("python3 not found: \(outcome.summary)") }
        resolvedPython.withLock { $0 = path }
        return path
    }
    private static let resolvedPython = Locked<String?>(nil)
}
