import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport
@testable import WarmCacheUpdates

/// A file server whose validators come from the file's modification second and size (nginx's
/// `ETag`), and a bundle republished within the second it was served in, at the same size:
/// "nothing changed" must come from the statement (or the index's hash), not from a `304`.
@Suite("Revalidation against second-granular validators")
struct RevalidationTests {
    static let prefix = "/pub/Images.warmcache/"

    /// Serves the bundle folder as plain files, with the statement and index modified at `second`.
    func publish(_ published: PublishedBundle, on server: FixtureServer, modified second: Date) throws {
        for url in [published.statementURL, published.indexURL] where FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.setAttributes([.modificationDate: second], ofItemAtPath: url.path)
        }
        server.setRoute(Self.prefix, .directory(published.directory))
    }

    @Test("a statement republished within the same second at the same size is still seen", arguments: [true, false])
    func sameSecondRepublish(signed: Bool) async throws {
        var published = try PublishedBundle(sources: 6, signingKey: signed ? TestKeys.publisher : nil)
        let server = try await FixtureServer.start()
        let second = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3_600).rounded(.down))
        let watched = signed ? BundleFormat.statementFileName : BundleFormat.indexFileName
        let watchedURL = published.directory.appendingPathComponent(watched)
        try publish(published, on: server, modified: second)
        server.setDate(second.addingTimeInterval(0.4))   // served in the second it was written
        let local = temporaryUpdateDirectory()
        let updater = try makeUpdater(server.url(Self.prefix), into: local,
                                      .init(allowsUnsignedUpdates: !signed))
        #expect(try await updater.update().outcome == .updated)

        // Republished in that same second at the same size: the server's validators (its ETag is
        // the size and the modification second) do not change.
        let firstSize = try Data(contentsOf: watchedURL).count
        try published.change([0])
        try #require(try Data(contentsOf: watchedURL).count == firstSize, "the same size, as the defect needs")
        try publish(published, on: server, modified: second)
        server.resetStatistics()
        let second2 = try await updater.update()
        #expect(second2.outcome == .updated && second2.blobsDownloaded == 2, "the new release is installed")
        let request = try #require(server.requests(for: Self.prefix + watched).first)
        #expect(request.header("If-None-Match") == nil, "validators served within their second are not used")

        // Once the server's clock is past that second, the validators are kept, and an unchanged
        // bundle costs one conditional request again.
        server.setDate(second.addingTimeInterval(5))
        server.resetStatistics()
        let third = try await updater.update()
        #expect(third.outcome == .upToDate && third.requests == 1)
        server.resetStatistics()
        let fourth = try await updater.update()
        #expect(fourth.outcome == .upToDate && fourth.requests == 1 && fourth.bytesDownloaded == 0)
        #expect(server.totalRequestCount == 1 && server.bodyBytesSent == 0, "one conditional request, answered 304")
        #expect(server.requests(for: Self.prefix + watched).first?.header("If-None-Match") != nil)
        try await server.shutdown()
    }

    @Test("a statement signed again for a later expiry is installed without downloading the index")
    func resignedStatement() async throws {
        let published = try PublishedBundle(sources: 4)
        let server = try await FixtureServer.start()
        try published.serve(on: server)
        let local = temporaryUpdateDirectory()
        let updater = try makeUpdater(server.url(Self.prefix), into: local)
        let first = try await updater.update()
        let resigned = try published.sign(validity: 90 * 86_400)
        try published.serve(on: server)
        server.resetStatistics()
        let second = try await updater.update()
        #expect(second.outcome == .upToDate && second.version == 2 && second.expiresAt == resigned.statement.expiresAt)
        #expect(second.requests == 1 && second.indexBytes == 0 && server.requests(for: Self.prefix + "index.sqlite").isEmpty)
        #expect(try Data(contentsOf: local.appendingPathComponent("statement.json")) == resigned.data)
        #expect(first.expiresAt != second.expiresAt)
        try await server.shutdown()
    }

    @Test("the validators kept are only those a later change must alter")
    func trustworthyValidators() {
        func response(_ headers: [String: String]) -> TransferResponse {
            TransferResponse(status: 200, headers: Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) }),
                             byteCount: 1)
        }
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        let etagOnly = UpdateState.trustworthyValidators(of: response(["ETag": "\"abc\""]))
        #expect(etagOnly.etag == "\"abc\"" && etagOnly.lastModified == nil, "an ETag of its own (e.g. a content hash)")
        let later = UpdateState.trustworthyValidators(of: response(
            ["ETag": "\"e\"", "Last-Modified": modified, "Date": "Sun, 06 Nov 1994 08:49:38 GMT"]))
        #expect(later.etag == "\"e\"" && later.lastModified == modified)
        let sameSecond = UpdateState.trustworthyValidators(of: response(
            ["ETag": "\"e\"", "Last-Modified": modified, "Date": modified]))
        #expect(sameSecond.etag == nil && sameSecond.lastModified == nil)
        let noDate = UpdateState.trustworthyValidators(of: response(["Last-Modified": modified]))
        #expect(noDate.etag == nil && noDate.lastModified == nil)
    }
}
