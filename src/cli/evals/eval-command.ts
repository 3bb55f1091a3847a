import fs from 'node:fs';
import readline from 'node:readline/promises';
import { parseArgs } from 'node:util';
import YAML from 'yaml';
import { parseDuration } from '../../config/sections/duration-schema.js';
import { ConfigError } from '../../errors.js';
import { openEvalSandbox } from '../../gateway/eval-sandbox.js';
import { createLogger } from '../../log/log.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import type { EvalCase } from '../../runtime/evals/eval-case.js';
import { evalSelectionSchema, failConditions, type EvalCandidate, type EvalRunOptions, type EvalSelection, type FailCondition } from '../../runtime/evals/eval-request.js';
import { caseLine, markdownReport, summaryText } from '../../runtime/evals/eval-report.js';
import { planEval, runEval } from '../../runtime/evals/eval-runner.js';
import { EvalTally, failedConditions } from '../../runtime/evals/eval-tally.js';
import type { CliIo } from '../io/cli-io.js';
import { configPathFrom } from '../io/config-path.js';
import { readSet, saveSet } from '../../runtime/evals/eval-sets.js';

export const EVAL_OPTIONS = {
  config: { type: 'string', short: 'c' },
  candidate: { type: 'string' },
  override: { type: 'string', multiple: true },
  mappings: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  mapping: { type: 'string' },
  preset: { type: 'string' },
  agent: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  set: { type: 'string' },
  'save-set': { type: 'string' },
  model: { type: 'string' },
  'live-reads': { type: 'boolean' },
  repeat: { type: 'string' },
  judge: { type: 'string' },
  rubric: { type: 'string' },
  'no-fixtures': { type: 'boolean' },
  json: { type: 'boolean' },
  markdown: { type: 'boolean' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  'fail-on': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof EVAL_OPTIONS }>>['values'];

/** `24h`, `7d` (that long ago), or a date and time (ISO 8601) */
function instant(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(text)) return Date.now() - parseDuration(text);
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new Error(`--${flag} ${text}: not a date (2026-11-28, 2026-11-28T09:00Z) nor a time ago (24h, 7d)`);
  return at;
}

function integer(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`--${flag} ${text}: not a whole number`);
  return Number(text);
}

/** `KEY=VALUE`: VALUE read as JSON when it is JSON, from a file with @FILE, else as text */
function overrides(values: string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of values ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--override ${pair}: must look like KEY=VALUE (agents.main.instructions=@prompt.md)`);
    const text = pair.slice(at + 1);
    let value: unknown = text;
    if (text.startsWith('@')) value = fs.readFileSync(text.slice(1), 'utf8');
    else {
      try {
        value = JSON.parse(text);
      } catch {
        // plain text
      }
    }
    out[pair.slice(0, at)] = value;
  }
  return out;
}

function selectionOf(values: Values, configFile: string): EvalSelection {
  const saved = values.set ? readSet(configFile, values.set) : undefined;
  const status = values.status === undefined ? undefined : /^\d+$/.test(values.status) ? Number(values.status) : values.status;
  const parsed = evalSelectionSchema.safeParse({
    ...saved,
    ...(values.since !== undefined && { since: instant('since', values.since) }),
    ...(values.until !== undefined && { until: instant('until', values.until) }),
    ...(values.mapping && { mapping: values.mapping }),
    ...(values.preset && { preset: values.preset }),
    ...(values.agent && { agent: values.agent }),
    ...(status !== undefined && { status }),
    ...(values.limit !== undefined && { limit: integer('limit', values.limit) }),
  });
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `--${String(i.path[0] ?? 'selection')}: ${i.message}`).join('\n'));
  return parsed.data;
}

function failOnOf(text: string | undefined): FailCondition[] {
  if (!text) return [];
  const asked = text.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = asked.filter((c) => !(failConditions as readonly string[]).includes(c));
  if (unknown.length) throw new Error(`--fail-on ${unknown.join(',')}: not a condition (${failConditions.join(', ')})`);
  return asked as FailCondition[];
}

function candidateMappings(file: string | undefined): EvalCandidate['mappings'] {
  if (!file) return [];
  const value: unknown = YAML.parse(fs.readFileSync(file, 'utf8'));
  const list = Array.isArray(value) ? value : value && typeof value === 'object' && Array.isArray((value as { mappings?: unknown }).mappings) ? (value as { mappings: unknown[] }).mappings : [value];
  if (!list.every((m) => m && typeof m === 'object' && !Array.isArray(m))) throw new Error(`--mappings ${file}: holds a mapping, a list of mappings, or { mappings: [...] }`);
  return list as EvalCandidate['mappings'];
}

/** the ids done by the earlier run of --out, and their tally (--resume) */
function earlierResults(file: string, tally: EvalTally): Set<string> {
  const done = new Set<string>();
  if (!fs.existsSync(file)) return done;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const result = JSON.parse(line) as EvalCase;
    done.add(result.id);
    tally.add(result);
  }
  return done;
}

async function confirm(io: CliIo, question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/**
 * `herald eval`: replays recorded requests through a candidate config and reports what would
 * change. Nothing is sent, stored or counted: the recording is opened read-only, tools answer
 * from the recording, writes are never executed.
 */
export async function evalCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  let values: Values;
  let selection: EvalSelection;
  let failOn: FailCondition[];
  let candidate: EvalCandidate;
  let run: EvalRunOptions;
  let file: string;
  try {
    values = parseArgs({ args: argv, options: EVAL_OPTIONS, allowPositionals: false }).values;
    file = configPathFrom(values.config);
    selection = selectionOf(values, file);
    failOn = failOnOf(values['fail-on']);
    candidate = { overrides: overrides(values.override), mappings: candidateMappings(values.mappings), ...(values.model && { model: values.model }) };
    if (values.judge && !values.rubric) throw new Error('--judge needs --rubric FILE (what a good reply is)');
    if (values.resume && !values.out) throw new Error('--resume needs --out FILE (the results of the run to go on with)');
    run = {
      liveReads: values['live-reads'] === true,
      repeat: integer('repeat', values.repeat) ?? 1,
      fixtures: values['no-fixtures'] !== true,
      ...(values.judge && { judge: { model: values.judge, rubric: fs.readFileSync(values.rubric!, 'utf8') } }),
    };
    if (run.repeat < 1 || run.repeat > 20) throw new Error(`--repeat ${run.repeat}: from 1 to 20`);
    if (values['save-set']) io.err(`saved the selection as ${saveSet(file, values['save-set'], selection)}`);
  } catch (error) {
    io.err(`herald eval: ${(error as Error).message}`);
    return 2;
  }
  // the sandbox's own log: only what goes wrong (an MCP server that will not start), on stderr
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  let sandbox;
  try {
    sandbox = await openEvalSandbox({ configFile: file, candidateFile: values.candidate, candidate, builtins, logger });
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`herald eval: the candidate does not load:\n${error.faults.map((f) => `  ${f}`).join('\n')}`);
      return 1;
    }
    io.err(`herald eval: ${(error as Error).message}`);
    return 1;
  }
  const stop = new AbortController();
  const onSignal = () => {
    io.err('stopping after the request in flight…');
    stop.abort();
  };
  process.once('SIGINT', onSignal);
  try {
    const input = { selection, run, ...(candidate.model && { model: candidate.model }) };
    const plan = await planEval(sandbox.deps, input);
    io.err(`${plan.requests} requests to replay, ${plan.turns} agent turn(s), about ${plan.promptTokens} prompt tokens`);
    if (plan.paidModels.length && !values.yes) {
      io.err(`This eval sends about ${plan.promptTokens} prompt tokens (${plan.turns} turns, more where tools are called) to ${plan.paidModels.join(', ')}, which costs tokens.`);
      if (!(await confirm(io, 'Go on?'))) {
        io.err(`herald eval: not run. ${process.stdin.isTTY ? '' : 'No terminal to ask: '}pass --yes to send them, or --model embedded/extractive for a dry run that costs nothing`);
        return 2;
      }
    }
    const tally = new EvalTally();
    const done = values.resume ? earlierResults(values.out!, tally) : new Set<string>();
    if (values.out && !values.resume) fs.writeFileSync(values.out, '');
    // kept for --json and --markdown; the text report and --out stream each result instead
    const kept: EvalCase[] = [];
    const keep = values.json === true || values.markdown === true;
    let n = done.size;
    const { summary, stopped } = await runEval(sandbox.deps, input, {
      done,
      tally,
      signal: stop.signal,
      onCase(result) {
        n++;
        if (values.out) fs.appendFileSync(values.out, `${JSON.stringify(result)}\n`);
        if (keep) kept.push(result);
        io.err(`[${n}/${plan.requests}] ${caseLine(result)}`);
      },
    });
    const failed = failedConditions(summary, failOn);
    if (values.json) io.out(JSON.stringify({ summary, failed, stopped, cases: kept }, null, 2));
    else if (values.markdown) io.out(markdownReport(summary, kept, failed));
    else for (const line of summaryText(summary)) io.out(line);
    if (stopped) {
      io.err(values.out ? `stopped: ${n} of ${plan.requests} done; go on with the same command and --resume` : `stopped: ${n} of ${plan.requests} done (pass --out FILE to be able to resume)`);
      return 130;
    }
    if (failed.length) {
      io.err(`herald eval: failed on ${failed.join(', ')}`);
      return 1;
    }
    return 0;
  } catch (error) {
    io.err(`herald eval: ${(error as Error).message}`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    await sandbox.close();
  }
}
