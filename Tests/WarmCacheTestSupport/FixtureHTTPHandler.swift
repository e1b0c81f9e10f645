import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers the requests of one connection according to the server's routes.
///
/// NIO's HTTP server pipeline (with pipelining assistance) hands over one request at a
/// time and holds the next until this handler writes `.end`, so the handler only ever
/// deals with a single request. Everything runs on the connection's event loop; slow
/// and trickled responses use scheduled tasks, never sleeps.
final class FixtureHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: FixtureServerState
    private let connection: Int
    private var head: HTTPRequestHead?
    /// Whether a request is between `requestStarted` and `requestEnded` bookkeeping.
    private var inFlight = false
    /// False once the channel is gone; scheduled steps then stop.
    private var active = true
    /// The path of the request being answered.
    private var path = ""

    init(state: FixtureServerState, connection: Int) {
        self.state = state
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
        case .body:
            break  // request bodies are ignored
        case .end:
            guard let requestHead = head else { return }
            head = nil
            respond(to: requestHead, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        active = false
        endRequest()
        context.fireChannelInactive()
    }

    private func respond(to requestHead: HTTPRequestHead, context: ChannelHandlerContext) {
        let ticket = state.requestStarted(requestHead, connection: connection)
        path = ticket.request.path
        inFlight = true
        let keepAlive = requestHead.isKeepAlive
        // Resolving may read a file (directory routes): do it on the thread pool.
        NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { () -> ResponsePlan in
            guard let route = ticket.route else { return .plain(404, "no route for \(ticket.request.path)") }
            return ResponsePlan.resolve(route, routePath: ticket.routePath, request: ticket.request, index: ticket.index)
        }
        .assumeIsolated()
        .whenComplete { result in
            let plan = (try? result.get()) ?? .plain(500, "fixture server could not resolve the route")
            let loop = context.eventLoop.assumeIsolated()
            if plan.headerDelay > 0 {
                loop.scheduleTask(in: Self.amount(plan.headerDelay)) {
                    self.sendHeadOnceOpen(plan, keepAlive: keepAlive, context: context)
                }
            } else {
                self.sendHeadOnceOpen(plan, keepAlive: keepAlive, context: context)
            }
        }
    }

    /// Sends the head now, or polls until the plan's gate opens (or the client goes away).
    private func sendHeadOnceOpen(_ plan: ResponsePlan, keepAlive: Bool, context: ChannelHandlerContext) {
        guard active else { return }
        if let gate = plan.gate, !gate.isOpen {
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(10)) {
                self.sendHeadOnceOpen(plan, keepAlive: keepAlive, context: context)
            }
            return
        }
        sendHead(plan, keepAlive: keepAlive, context: context)
    }

    private func sendHead(_ plan: ResponsePlan, keepAlive: Bool, context: ChannelHandlerContext) {
        guard active else { return }
        var headers = HTTPHeaders(plan.headers.map { ($0.name, $0.value) })
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        // As every origin server with a clock does (RFC 9110 §6.6.1).
        if !headers.contains(name: "Date") { headers.add(name: "Date", value: HTTPDateFormat.string(from: state.now())) }
        let status = HTTPResponseStatus(statusCode: plan.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if plan.endless {
            sendEndlessBody(plan, context: context)
            return
        }
        let sendable = plan.truncateAfter.map { min($0, plan.body.count) } ?? plan.body.count
        sendBody(plan, from: 0, upTo: sendable, keepAlive: keepAlive, context: context)
    }

    /// Writes the body again each time the previous write has gone, until the channel closes.
    private func sendEndlessBody(_ plan: ResponsePlan, context: ChannelHandlerContext) {
        guard active else { return }
        let buffer = context.channel.allocator.buffer(bytes: plan.body)
        state.bodySent(plan.body.count)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).assumeIsolated().whenComplete { result in
            guard case .success = result else { return }
            self.sendEndlessBody(plan, context: context)
        }
    }

    /// Writes `body[offset..<end]`, all at once or one trickle chunk per scheduled step.
    /// Each step advances `offset`, so the recursion ends after `end / chunkSize` steps.
    private func sendBody(_ plan: ResponsePlan, from offset: Int, upTo end: Int, keepAlive: Bool, context: ChannelHandlerContext) {
        guard active else { return }
        let stop = plan.trickle.map { min(offset + $0.chunkSize, end) } ?? end
        if stop > offset {
            let buffer = context.channel.allocator.buffer(bytes: plan.body[offset..<stop])
            state.bodySent(stop - offset)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        if stop < end, let trickle = plan.trickle {
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.amount(trickle.interval)) {
                self.sendBody(plan, from: stop, upTo: end, keepAlive: keepAlive, context: context)
            }
            return
        }
        finish(plan, cut: end < plan.body.count, keepAlive: keepAlive, context: context)
    }

    private func finish(_ plan: ResponsePlan, cut: Bool, keepAlive: Bool, context: ChannelHandlerContext) {
        if cut {
            // Promised more than was sent: hang up mid-body, like a dropped transfer.
            context.flush()
            endRequest()
            context.close(promise: nil)
            return
        }
        // Counted as finished before `.end` leaves, so a client reacting to `.end` with its
        // next request can never be seen as one extra request in flight.
        endRequest()
        let (state, path) = (self.state, self.path)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { result in
            if case .success = result, plan.status == 200, !plan.endless { state.fullResponseSent(for: path) }
            if !keepAlive { context.close(promise: nil) }
        }
    }

    private func endRequest() {
        if inFlight {
            inFlight = false
            state.requestEnded()
        }
    }

    private static func amount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(max(0, seconds) * 1_000_000_000))
    }
}
