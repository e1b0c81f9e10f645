import ArgumentParser

/// `warm-cache`: bakes remote images into an offline bundle at build time.
@main
struct WarmCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm-cache",
        abstract: "Bake remote images into an offline, content-addressed bundle at build time.",
        discussion: """
            Exit codes:
              0   success
              1   error (unreadable bundle, file system, libvips missing, …)
              2   verify found problems; lookup found no image
              3   some sources failed; the bundle holds the others
              4   nothing written (every source failed, or --strict and one failed)
              5   pull: the update source failed or served something invalid (the local bundle is unchanged)
              64  bad command line
              65  invalid manifest (every problem is listed with file:line:column)
              75  another run holds the output's lock (pull: another update of the directory is running)
            """,
        version: WarmCacheVersionText.text,
        subcommands: [WarmCommand.self, PlanCommand.self, MergeCommand.self, InspectCommand.self,
                      VerifyCommand.self, LookupCommand.self, PullCommand.self],
        defaultSubcommand: WarmCommand.self)
}
