/**
 * Preloaded by `bun test` (bunfig.toml): every test runs as on CI's 2 cores, so a devnet a test starts with
 * `bun node/main.ts` and no --network gets what `--network auto` picks there (every node on one event loop) on any
 * machine. node/devnet/autoNetwork.test.ts gives its core counts explicitly.
 */
process.env.DEVNET_CORES ??= "2";
