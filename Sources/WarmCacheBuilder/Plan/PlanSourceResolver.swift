import Foundation
import WarmCache

/// A source found in the manifest, before duplicate detection.
struct PlanSourceCandidate {
    var identifier: SourceIdentifier
    var location: PlannedSource.Location
    var listedAt: ManifestLocation
    /// Whether the identifier is an entry's `key:` rather than derived from the URL or path.
    var isKeyed: Bool
}

/// Turns an entry's `url`, `urls`, `urls_from` or `path` into identified sources, checking
/// URLs, and that local files exist.
struct PlanSourceResolver {
    let manifestDirectory: URL
    let diagnostics: ManifestDiagnostics
    let fileManager = FileManager.default

    /// Calls `body` with each source the entry lists, in order (one at a time: a `urls_from`
    /// file of a million lines is never held as a million candidates).
    func forEachCandidate(of entry: ManifestImageEntry, _ body: (PlanSourceCandidate) -> Void) {
        switch entry.source {
        case .url(let url):
            if let candidate = remote(url, key: entry.key, context: .manifest) { body(candidate) }
        case .urls(let urls):
            for url in urls {
                if let candidate = remote(url, key: nil, context: .manifest) { body(candidate) }
            }
        case .urlsFrom(let file):
            urlsFromFile(file, body)
        case .path(let path):
            if let candidate = local(path, key: entry.key) { body(candidate) }
        }
    }

    enum URLContext {
        case manifest, urlsFile
    }

    private func remote(_ text: Located<String>, key: Located<String>?, context: URLContext) -> PlanSourceCandidate? {
        switch ManifestURLCheck.check(text.value) {
        case .failure(let problem):
            let advice = context == .manifest ? "use 'path:' for a local file"
                : "list local files as 'path:' entries in the manifest"
            diagnostics.error(problem.message(advice: advice), at: text.location)
            return nil
        case .success(let checked):
            let identifier = key.map { SourceIdentifier($0.value) } ?? checked.identifier
            return PlanSourceCandidate(identifier: identifier, location: .remote(checked.url), listedAt: text.location,
                                       isKeyed: key != nil)
        }
    }

    private func local(_ path: Located<String>, key: Located<String>?) -> PlanSourceCandidate? {
        guard !path.value.isEmpty else {
            diagnostics.error("'path' must not be empty", at: path.location)
            return nil
        }
        if path.value.contains("://") {
            diagnostics.error("'path' is a local file path, relative to the manifest; for '\(path.value)' use 'url:'",
                              at: path.location)
            return nil
        }
        guard let file = existingFile(path) else { return nil }
        let identifier = key.map { SourceIdentifier($0.value) } ?? SourceIdentifier(verbatim: path.value)
        return PlanSourceCandidate(identifier: identifier, location: .file(file), listedAt: path.location,
                                   isKeyed: key != nil)
    }

    /// One URL per line (LF or CRLF); blank lines and `#` comments (whole-line, or after whitespace)
    /// are skipped. Lines are read one at a time, never held as a list.
    private func urlsFromFile(_ path: Located<String>, _ body: (PlanSourceCandidate) -> Void) {
        guard let file = existingFile(path) else { return }
        guard let text = fileManager.contents(atPath: file.path).flatMap({ String(data: $0, encoding: .utf8) }) else {
            diagnostics.error("cannot read '\(path.value)' as UTF-8 text", at: path.location)
            return
        }
        let filePath = file.path  // one string shared by every line's location
        var listsAnything = false
        var lineNumber = 0
        // Lines end at a line feed, carriage return (CRLF counts once), vertical tab or form feed,
        // found in the UTF-8 bytes: a million-line file is not walked by `Character`.
        let bytes = text.utf8
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex { $0 >= 0x0A && $0 <= 0x0D } ?? bytes.endIndex
            let rawLine = text[lineStart..<lineEnd]
            lineStart = lineEnd
            if lineStart < bytes.endIndex {
                let isCR = bytes[lineStart] == 0x0D
                lineStart = bytes.index(after: lineStart)
                if isCR, lineStart < bytes.endIndex, bytes[lineStart] == 0x0A { lineStart = bytes.index(after: lineStart) }
            }
            lineNumber += 1
            let line = Self.stripComment(rawLine)
            let leading = line.prefix { $0 == " " || $0 == "\t" }
            var trimmed = line.dropFirst(leading.count)
            while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
            guard !trimmed.isEmpty else { continue }
            let content = String(trimmed)
            listsAnything = true
            let location = ManifestLocation(file: filePath, line: lineNumber,
                                            column: leading.unicodeScalars.count + 1)
            if let candidate = remote(Located(content, at: location), key: nil, context: .urlsFile) {
                body(candidate)
            }
        }
        if !listsAnything {
            diagnostics.warning("'\(path.value)' lists no URLs", at: path.location)
        }
    }

    /// The line without a `#` comment: one starting the line, or preceded by whitespace
    /// (a URL's own `#fragment` has no space before it).
    static func stripComment(_ line: Substring) -> Substring {
        guard line.utf8.contains(UInt8(ascii: "#")) else { return line }  // most lines: no walk by Character
        var previous: Character = " "
        for index in line.indices {
            if line[index] == "#", previous == " " || previous == "\t" { return line[..<index] }
            previous = line[index]
        }
        return line
    }

    /// The absolute URL of an existing regular file, or `nil` after reporting where it was looked for.
    private func existingFile(_ path: Located<String>) -> URL? {
        let file = path.value.hasPrefix("/") ? URL(fileURLWithPath: path.value)
            : manifestDirectory.appendingPathComponent(path.value)
        let standardized = file.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: standardized.path, isDirectory: &isDirectory) else {
            let siblings = (try? fileManager.contentsOfDirectory(atPath: standardized.deletingLastPathComponent().path))
            let hint = siblings.map { ManifestSuggestions.hint(for: standardized.lastPathComponent, in: $0) } ?? ""
            diagnostics.error("file not found: '\(path.value)'\(hint) (looked for \(standardized.path))",
                              at: path.location)
            return nil
        }
        guard !isDirectory.boolValue else {
            diagnostics.error("'\(path.value)' is a directory; list image files one by one", at: path.location)
            return nil
        }
        return standardized
    }
}
