import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// Downloads through a real proxy on 127.0.0.1 (tinyproxy), configured the way CI runners and
/// company networks do it: `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY` in the environment.
@Suite struct ProxyTests {
    @Test func environmentProxyWithCredentialsIsUsedAndNeverPrinted() async throws {
        let image = try SourceImages.distinct(1)[0]
        let routes: [String: FixtureRoute] = ["/p.jpg": .image(image.bytes, contentType: image.contentType)]
        try await withWorld(routes: routes) { scratch, server in
            let password = "pr0xy-s3cret-\(UInt32.random(in: 0...UInt32.max))"
            let proxy = try await TinyProxy(in: scratch.url, credentials: ("builder", password))
            defer { proxy.stop() }
            try scratch.write(Manifests.yaml(urls: [server.url("/p.jpg")]), to: "manifest.yml")
            let target = "127.0.0.1:\(server.url("/").port!)"

            // Right credentials: the download goes through the proxy (its log shows the tunnel).
            let good = try await CLI.run(
                ["warm", "manifest.yml", "--cache-dir", "cache", "-v", "--report", "good.json"], in: scratch.url,
                environment: ["HTTP_PROXY": "http://builder:\(password)@127.0.0.1:\(proxy.port)"])
            #expect(good.status == 0, "\(good)")
            #expect(proxy.log.contains("CONNECT \(target)"), "the proxy saw no tunnel: \(proxy.log)")
            #expect(!good.stderr.contains(password) && !good.stdout.contains(password), "password printed")
            let plan = try await CLI.run(["plan", "manifest.yml", "--json"], in: scratch.url,
                                         environment: ["HTTP_PROXY": "http://builder:\(password)@127.0.0.1:\(proxy.port)"])
            #expect(plan.status == 0 && plan.stdout.contains("127.0.0.1:\(proxy.port)"), "\(plan)")
            #expect(!plan.stdout.contains(password), "password in the plan")

            // Wrong credentials: tinyproxy refuses the tunnel (with 401; other proxies say 407); the
            // failure says so, once, without the password.
            let wrong = "not-\(password)"
            let bad = try await CLI.run(
                ["warm", "manifest.yml", "--cache-dir", "cache-2", "-o", "Bad/Images.warmcache", "--report", "bad.json",
                 "-v"],
                in: scratch.url, environment: ["HTTP_PROXY": "http://builder:\(wrong)@127.0.0.1:\(proxy.port)"])
            #expect(bad.status == 4, "\(bad)")
            #expect(!bad.stderr.contains(wrong) && !bad.stdout.contains(wrong), "password printed: \(bad)")
            let report = try JSONDecoder().decode(WarmReport.self, from: Data(contentsOf: scratch.path("bad.json")))
            let failure = try #require(report.sources.first?.failure)
            #expect(failure.kind == .proxy, "\(failure)")
            #expect(failure.message.contains("user and password"), "\(failure)")
            #expect(!String(decoding: try Data(contentsOf: scratch.path("bad.json")), as: UTF8.self).contains(wrong))
            #expect(!proxy.log.contains(password) && !proxy.log.contains(wrong))

            // NO_PROXY sends the host directly: a dead proxy is then never asked.
            let direct = try await CLI.run(
                ["warm", "manifest.yml", "--cache-dir", "cache-3", "-o", "Direct/Images.warmcache"], in: scratch.url,
                environment: ["HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": "localhost,127.0.0.1"])
            #expect(direct.status == 0, "\(direct)")
        }
    }

    @Test func manifestProxySettingWinsOverTheEnvironment() async throws {
        let image = try SourceImages.distinct(1)[0]
        let routes: [String: FixtureRoute] = ["/m.jpg": .image(image.bytes, contentType: image.contentType)]
        try await withWorld(routes: routes) { scratch, server in
            let proxy = try await TinyProxy(in: scratch.url)
            defer { proxy.stop() }
            let fetch = "fetch:\n  proxy: http://127.0.0.1:\(proxy.port)\n"
            try scratch.write(Manifests.yaml(urls: [server.url("/m.jpg")], fetch: fetch), to: "manifest.yml")
            // The environment names a dead proxy; the manifest's proxy is the one used.
            let run = try await CLI.run(["warm", "manifest.yml", "--cache-dir", "cache"], in: scratch.url,
                                        environment: ["HTTP_PROXY": "http://127.0.0.1:9"])
            #expect(run.status == 0, "\(run)")
            #expect(proxy.log.contains("CONNECT 127.0.0.1:\(server.url("/").port!)"), "\(proxy.log)")
        }
    }
}
