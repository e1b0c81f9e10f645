import Testing
@testable import WarmCacheImaging

/// The imaging pool's memory rules: what may render, and how many processes may start, within a limit.
@Suite struct MemoryAdmissionTests {
    static let mib = 1 << 20

    @Test func withoutALimitEverythingIsAdmitted() {
        var memory = MemoryAdmission(limit: nil, perProcess: 70 * Self.mib)
        for _ in 0..<8 { memory.processStarted() }
        memory.started(5_000 * Self.mib)
        #expect(memory.admits(5_000 * Self.mib))
        #expect(memory.allowsAnotherProcess(forRender: 5_000 * Self.mib))
        #expect(memory.processesToPrestart(9) == 9)
    }

    @Test func rendersShareTheLimitWithTheProcessesIdleMemory() {
        var memory = MemoryAdmission(limit: 400 * Self.mib, perProcess: 70 * Self.mib)
        memory.processStarted()
        memory.processStarted()  // 140 MiB idle
        #expect(memory.admits(300 * Self.mib))  // nothing renders: always
        memory.started(200 * Self.mib)  // 340 MiB
        #expect(memory.admits(60 * Self.mib))  // 400: equal fits
        #expect(!memory.admits(61 * Self.mib))
        memory.started(60 * Self.mib)
        memory.finished(200 * Self.mib)
        #expect(memory.reserved == 200 * Self.mib && memory.rendering == 1)
        #expect(memory.admits(200 * Self.mib))
    }

    @Test func aRenderLargerThanTheLimitRunsAlone() {
        var memory = MemoryAdmission(limit: 300 * Self.mib, perProcess: 70 * Self.mib)
        memory.processStarted()
        #expect(memory.admits(900 * Self.mib))
        memory.started(900 * Self.mib)
        #expect(!memory.admits(1))
        #expect(!memory.allowsAnotherProcess(forRender: 0))
        memory.finished(900 * Self.mib)
        #expect(memory.admits(900 * Self.mib))
    }

    @Test func aProcessStartsOnlyWithRoomForItAndTheRenderWaitingForIt() {
        var memory = MemoryAdmission(limit: 448 * Self.mib, perProcess: 72 * Self.mib)
        #expect(memory.allowsAnotherProcess(forRender: 10_000 * Self.mib))  // the first always
        memory.processStarted()
        memory.started(250 * Self.mib)  // 322 MiB
        #expect(memory.allowsAnotherProcess(forRender: 54 * Self.mib))  // 448
        #expect(!memory.allowsAnotherProcess(forRender: 55 * Self.mib))
        memory.processStopped()
        #expect(memory.processes == 0 && memory.reserved == 250 * Self.mib)
    }

    @Test func prestartLeavesThreeQuartersOfTheLimitForRendering() {
        let memory = MemoryAdmission(limit: 336 * Self.mib, perProcess: 72 * Self.mib)
        #expect(memory.processesToPrestart(3) == 1)
        let larger = MemoryAdmission(limit: 1_536 * Self.mib, perProcess: 72 * Self.mib)
        #expect(larger.processesToPrestart(9) == 5)
        #expect(larger.processesToPrestart(2) == 2)
    }
}
