import Foundation
import Testing
@testable import WarmCacheBuilder

/// `WARM_CACHE_CA_CERTIFICATES`: certificate authorities trusted for downloads besides the system's.
/// Examples/run-consumer-https.sh downloads through it from a loopback HTTPS server.
@Suite struct ExtraCertificatesTests {
    static let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    let fixture: ManifestFixture

    init() throws {
        fixture = try ManifestFixture(files: ["a.png": "png", "ca.pem": Self.pem, "notes.txt": "not a certificate"])
    }

    private var manifest: String { minimalManifest(images: "  - path: a.png\n    presets: [thumb]") }

    @Test func aReadablePEMIsTrustedBesidesTheSystems() throws {
        let path = fixture.directory.appendingPathComponent("ca.pem").path
        let plan = try fixture.load(manifest, environment: ["WARM_CACHE_CA_CERTIFICATES": path])
        #expect(plan.fetch.extraCertificates == path)
        #expect(try fixture.load(manifest).fetch.extraCertificates == nil)
    }

    @Test func aFileThatIsMissingOrNotPEMIsAnErrorNamingIt() {
        let missing = fixture.directory.appendingPathComponent("nowhere.pem").path
        let notPEM = fixture.directory.appendingPathComponent("notes.txt").path
        let first = fixture.diagnostics(manifest, environment: ["WARM_CACHE_CA_CERTIFICATES": missing])
        #expect(first == ["manifest.yml:1:1: error: WARM_CACHE_CA_CERTIFICATES names nowhere.pem, which cannot be read: "
            + "point it at a PEM file of certificate authorities, or unset it"], "\(first)")
        let second = fixture.diagnostics(manifest, environment: ["WARM_CACHE_CA_CERTIFICATES": notPEM])
        #expect(second.contains { $0.contains("holds no PEM certificate") }, "\(second)")
    }
}
