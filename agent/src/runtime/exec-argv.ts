/**
 * The V8 options the agent runs with: the binaries carry them in their SEA configuration
 * (`scripts/build-binaries.mjs`), and the benchmark starts the agent from source with them.
 *
 * A 1 MiB young generation instead of V8's 16 MiB: the pipeline's data lives outside the JS heap,
 * held by small Buffer objects that die young, and that memory is freed only when a scavenge
 * collects them. Scavenging every MiB instead of every 16 MiB frees it sooner: the stage's peak
 * RSS over a 1 GiB archive fell from 189–193 to 155–160 MiB, its CPU within the noise
 * (docs/benchmarks.md, issue 13). Setting the flag at run time (`v8.setFlagsFromString`) has no
 * effect once the heap is set up, hence the start-up option.
 */
export const AGENT_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=1'];
