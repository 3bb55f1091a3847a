import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { AS_THE_BUILD } from './compiled-baseline.js';
import { formatTable } from './table.js';

/**
 * What a hook run's turn costs in JavaScript, in process, without the store: the run's prompt (the
 * safety wrapper) and its turn with the embedded model (the prompt assembled, the model chain
 * asked, the usage estimate, the transcript made), as execute-run.ts gives them, with a session
 * that has no history and a record that writes nothing. The webhook bench cannot resolve a change
 * of a microsecond here; this measures it where nothing else runs.
 * Prints the CPU per turn (this process's, user + system), `TURN_RUNS` turns (default 20,000) per
 * batch, `TURN_ROUNDS` batches per checkout (default 12, the first two left out as the warm-up).
 *
 * Each checkout's modules are bundled by esbuild as `npm run build` bundles herald (tsx would name
 * every closure as it is made, a cost the build does not have).
 * `BENCH_HERALD_ROOT=<checkout>[,<checkout>]` (default this one) measures each checkout's sources
 * batch by batch in turn, the order flipped every round, so both see the same machine:
 *
 *   BENCH_HERALD_ROOT=/path/to/before,/path/to/after node --import tsx bench/run-turn.bench.ts
 */

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.TURN_RUNS ?? 20_000);
const ROUNDS = Number(process.env.TURN_ROUNDS ?? 12);
const WARMUP_ROUNDS = 2;

/** the modules a turn takes, of one checkout, bundled under this checkout's .tmp/ (git-ignored; packages resolve from node_modules) */
async function modulesOf(root: string, index: number) {
  const outfile = path.join(HERE, `.tmp/bench/run-turn-${index}.mjs`);
  const at = (file: string) => JSON.stringify(path.join(root, file));
  await build({
    stdin: {
      contents: [
        // the config loader moved to src/config/loading/: an older checkout has it at src/config/
        `export { parseConfig } from ${at(fs.existsSync(path.join(root, 'src/config/loading/load.ts')) ? 'src/config/loading/load.ts' : 'src/config/load.ts')};`,
        `export { ModelRegistry } from ${at('src/models/model-registry.ts')};`,
        `export { AgentDirectory } from ${at('src/agents/agent-directory.ts')};`,
        `export * from ${at('src/agents/agent-turn.ts')};`,
        // a checkout from before it has no turn computed in the call
        ...(fs.existsSync(path.join(root, 'src/agents/in-process-turn.ts')) ? [`export { takeRunTurnInProcess } from ${at('src/agents/in-process-turn.ts')};`] : []),
        `export { runPrompt, promptMeta } from ${at('src/runtime/run-prompt.ts')};`,
        `export { newMarkerId } from ${at('src/agents/external-content.ts')};`,
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    outfile,
    ...AS_THE_BUILD,
  });
  return import(pathToFileURL(outfile).href);
}

/** one checkout's turn, as a function of the run's number (each run's message differs, as each request's does) */
async function turnOf(root: string, index: number): Promise<(n: number) => unknown> {
  const { parseConfig, ModelRegistry, AgentDirectory, takeRunTurnInProcess, takeAgentTurn, completeAgentTurn, runPrompt, promptMeta, newMarkerId } = await modulesOf(root, index);
  // the turn execute-run.ts takes on the embedded model (takeRunTurnInProcess: computed in the call);
  // before it, the turn returns its outcome since the house's third step (takeAgentTurn); a checkout before that records through a callback
  const agentTurn = takeRunTurnInProcess ?? takeAgentTurn ?? completeAgentTurn;
  const config = parseConfig({}, path.join(os.tmpdir(), 'herald.json'), { sections: [] });
  const deps = { config, models: new ModelRegistry(config, {}), sessions: {}, usage: { record() {} } };
  const agent = new AgentDirectory(config).default();
  return (n) => {
    // /hooks/agent's action for the webhook bench's body
    const action = { kind: 'agent', message: `message ${n}: summarise the open tickets`, name: 'Bench', agentId: 'main', wakeMode: 'now', deliver: false, channel: 'last', allowUnsafeExternalContent: false, source: { mappingId: 'agent', path: 'agent' } };
    const markerId = newMarkerId();
    const createdAt = Date.now();
    return agentTurn(deps, {
      agent,
      purpose: 'run',
      sessionKey: `hook:${n}`,
      history: [],
      prompt: runPrompt(action, createdAt, markerId),
      question: action.message,
      retrieve: true,
      options: { thinking: undefined },
      fallbacks: true,
      deadlineAt: createdAt + 60_000,
      incoming: [{ role: 'user', content: action.message, createdAt, runId: `run-${n}`, meta: promptMeta(markerId) }],
      answer: () => ({ runId: `run-${n}` }),
      usage: { source: 'run', mappingId: 'agent' },
      record: async () => {},
    });
  };
}

const roots = (process.env.BENCH_HERALD_ROOT || HERE).split(',').map((root) => path.resolve(root.trim()));
const turns = await Promise.all(roots.map((root, i) => turnOf(root, i)));
console.log(`A hook run's turn in process (prompt, embedded model, usage, transcript; no store): ${RUNS} turns per batch, ${ROUNDS} batches per checkout, the first ${WARMUP_ROUNDS} a warm-up (load average ${os.loadavg()[0]!.toFixed(1)})`);
const perTurn = roots.map((): number[] => []);
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < roots.length; k++) {
    const i = r % 2 ? roots.length - 1 - k : k;
    const started = process.cpuUsage();
    for (let n = 0; n < RUNS; n++) await turns[i]!(n);
    const used = process.cpuUsage(started);
    if (r >= WARMUP_ROUNDS) perTurn[i]!.push((used.user + used.system) / RUNS);
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(formatTable(['checkout', 'mean µs/turn', 'least µs/turn'], roots.map((root, i) => [path.basename(root), mean(perTurn[i]!).toFixed(2), Math.min(...perTurn[i]!).toFixed(2)])));
