import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Records that versions before ``CacheRecords`` kept as one file each, moved into the records
/// database the first time a cache directory is opened by this version (a CI cache restored
/// from an earlier version keeps its downloads and renders):
///
/// ```
/// originals/<aa>/<name>.record   an OriginalRecord as text (its file's modification time: the last 304)
/// originals/<aa>/<name>.json     the same, as JSON (older still)
/// renders/<aa>/<key>.memo        a render memo entry
/// ```
/// Each file is removed once its record is in the database; one that cannot be read is removed
/// too (it only costs a download or a render).
struct LegacyCacheFiles {
    let cacheDirectory: URL

    /// Moves every legacy record into `records`, a thousand at a time.
    func moveRecords(into records: CacheRecords) {
        var originals: [(name: String, record: Data, confirmedAt: Date?)] = []
        var renders: [(key: String, entry: Data)] = []
        var moved: [String] = []
        var allSaved = true
        func save() {
            if (try? records.saveAll(originals: originals, renders: renders)) != nil {
                for path in moved { unlink(path) }
            } else {
                allSaved = false
            }
            originals.removeAll()
            renders.removeAll()
            moved.removeAll()
        }
        forEachFile(in: "originals") { path, name in
            let base: Substring
            let record: OriginalRecord?
            if name.hasSuffix(".record") {
                base = name.dropLast(".record".count)
                record = DurableFile.contents(atPath: path).flatMap { OriginalRecord(text: $0) }
            } else if name.hasSuffix(".json") {
                base = name.dropLast(".json".count)
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                record = DurableFile.contents(atPath: path).flatMap { try? decoder.decode(OriginalRecord.self, from: $0) }
            } else {
                return
            }
            moved.append(path)
            guard let record else { return }
            // A confirmation moved the record file's modification time instead of rewriting it.
            let confirmed = FileStamp(atPath: path)?.modified
            originals.append((String(base), record.text, confirmed.flatMap { $0 > record.checkedAt ? $0 : nil }))
            if moved.count >= 1000 { save() }
        }
        forEachFile(in: "renders") { path, name in
            guard name.hasSuffix(".memo") else { return }
            moved.append(path)
            if let entry = DurableFile.contents(atPath: path) {
                renders.append((String(name.dropLast(".memo".count)), entry))
            }
            if moved.count >= 1000 { save() }
        }
        if !moved.isEmpty { save() }
        if allSaved {
            try? FileManager.default.removeItem(at: cacheDirectory.appendingPathComponent("renders"))
        }
    }

    /// Calls `body` with the path and name of each file in the fan-out folders of `folder`.
    private func forEachFile(in folder: String, _ body: (_ path: String, _ name: String) -> Void) {
        let root = cacheDirectory.appendingPathComponent(folder).path
        guard let fanOut = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
        for sub in fanOut.sorted() {
            let subPath = root + "/" + sub
            for name in (try? FileManager.default.contentsOfDirectory(atPath: subPath)) ?? [] {
                body(subPath + "/" + name, name)
            }
        }
    }
}
