import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../plugin-host/load-config.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import { describeDirectGrant } from '../../tools/direct-call.js';
import { ConfigError, HeraldError } from '../../errors.js';
import { EnvPlaceholders } from '../config/config-faults.js';
import { builtinMappings } from '../../mappings/loading/builtin-mappings.js';
import { mappingFailureOf } from '../../mappings/mapping-failure.js';
import { trimSlashes, type HookRequest } from '../../mappings/hook-request.js';
import { runMappingFixtures } from '../../mappings/loading/mapping-fixtures.js';
import { MappingsEngine } from '../../mappings/mappings-engine.js';
import { resolveMappings } from '../../mappings/loading/resolve-mappings.js';
import type { CliIo } from '../io/cli-io.js';
import { configPathFrom } from '../io/config-path.js';
import { hooksPrefix } from '../../config/hooks-path.js';
import { parseExactJson } from '../../utils/exact-json.js';

const USAGE =
  'usage: herald hooks test <name> --payload FILE [--header K:V ...] [--query K=V ...] [--config FILE]\n' +
  '       herald hooks test --fixtures FILE [--config FILE]';

function pairs(values: string[] | undefined, separator: string, what: string, lowerKeys = false): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf(separator);
    if (at <= 0) throw new Error(`${what} "${value}" must look like NAME${separator}VALUE`);
    const key = value.slice(0, at).trim();
    out[lowerKeys ? key.toLowerCase() : key] = value.slice(at + 1).trim();
  }
  return out;
}

function parseOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      payload: { type: 'string', short: 'p' },
      header: { type: 'string', short: 'H', multiple: true },
      query: { type: 'string', short: 'q', multiple: true },
      config: { type: 'string', short: 'c' },
      fixtures: { type: 'string' },
    },
  });
}

/**
 * `herald hooks test`: a dry run of the mappings engine. Prints the action a request would
 * become (running its transform) without touching the store or starting a run.
 */
export async function hooksTestCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  let headers: Record<string, string>;
  let query: Record<string, string>;
  try {
    parsed = parseOptions(argv);
    headers = pairs(parsed.values.header, ':', '--header', true);
    query = pairs(parsed.values.query, '=', '--query');
  } catch (error) {
    io.err(`herald hooks test: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const placeholders = new EnvPlaceholders();
  try {
    return await dryRun(values, positionals, placeholders, headers, query, io, builtins);
  } finally {
    placeholders.restore();
  }
}

async function dryRun(
  values: ReturnType<typeof parseOptions>['values'],
  positionals: string[],
  placeholders: EnvPlaceholders,
  headers: Record<string, string>,
  query: Record<string, string>,
  io: CliIo,
  builtins: PluginSource[],
): Promise<number> {
  const { loaded, mappings, unset } = await loadWithPlaceholders(configPathFrom(values.config), placeholders, builtins);
  if (unset.length) io.err(`herald hooks test: not set, replaced by placeholders for this dry run: ${unset.join(', ')}`);
  const ctx = { config: loaded.config, channelNames: loaded.plugins.channelNames() };
  if (values.fixtures) return runFixtures(values.fixtures, loaded, ctx, io);

  const name = positionals[0];
  if (!name || !values.payload) {
    io.err(USAGE);
    return 2;
  }
  let payload: unknown;
  try {
    const text = fs.readFileSync(values.payload, 'utf8');
    payload = text.trim() ? parseExactJson(text) : {};
  } catch (error) {
    io.err(`herald hooks test: cannot read the payload ${values.payload}: ${(error as Error).message}`);
    return 1;
  }
  const path = trimSlashes(name);
  const request: HookRequest = {
    path,
    payload,
    headers,
    query,
    url: `http://${loaded.config.gateway.host}:${loaded.config.gateway.port}${hooksPrefix(loaded.config.hooks.path)}/${path}`,
  };
  const engine = new MappingsEngine([...builtinMappings(ctx), ...mappings]);
  try {
    const outcome = await engine.handle(request);
    io.err(`mapping: ${outcome.mappingId}`);
    if (outcome.idempotencyKey !== undefined) io.err(`idempotency key: ${outcome.idempotencyKey}`);
    if (outcome.response !== undefined) io.err(`answers: ${JSON.stringify(outcome.response)}`);
    // a direct call is resolved, never made: its arguments are in the action below, its grant decision here
    const first = outcome.type === 'action' ? outcome.action : outcome.type === 'actions' ? outcome.actions[0] : undefined;
    if (first?.kind === 'tool' && first.call) io.err(`tool call (not made): ${describeDirectGrant(first.call.tool, { outside: first.call.outside, signed: first.signed === true, mapping: first.tools })}`);
    const shown = outcome.type === 'skip' ? { skip: true } : outcome.type === 'actions' ? outcome.actions : outcome.type === 'respond' ? { response: outcome.response } : outcome.action;
    io.out(JSON.stringify(shown, null, 2));
    return 0;
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    io.err(`herald hooks test: ${error.status} ${error.message}`);
    if (error.cause instanceof Error) io.err(`  reason: ${error.cause.message}`);
    const at = mappingFailureOf(error)?.at;
    if (at) io.err(`  at: ${at}`);
    if (Array.isArray(error.details)) for (const d of error.details as { path: string; message: string }[]) io.err(`  ${d.path} ${d.message}`);
    return 1;
  }
}

/**
 * The config and its mappings, with every unset `${ENV}` (of the config file or a mapping file)
 * replaced by a placeholder: a dry run must not need production secrets. Other faults still throw.
 */
async function loadWithPlaceholders(file: string, placeholders: EnvPlaceholders, builtins: PluginSource[]) {
  const unset: string[] = [];
  for (;;) {
    try {
      const loaded = await loadConfigFile(file, { builtins });
      const mappings = await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
      return { loaded, mappings, unset };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const variables = error.faults.flatMap((f) => /environment variable (\w+) is not set/.exec(f)?.[1] ?? []);
      const fresh = variables.filter(placeholders.set);
      if (fresh.length === 0) throw error;
      unset.push(...fresh);
    }
  }
}

async function runFixtures(file: string, loaded: Parameters<typeof runMappingFixtures>[1], ctx: Parameters<typeof runMappingFixtures>[2], io: CliIo) {
  const results = await runMappingFixtures(file, loaded, ctx);
  for (const result of results) {
    io.out(`${result.ok ? 'ok  ' : 'FAIL'} ${result.label}`);
    for (const mismatch of result.mismatches) io.out(`       ${mismatch}`);
    // what happened, whole: a missing key of the expectation says nothing of a skip, an action or a refusal
    if (!result.ok) io.out(`       happened: ${happened(result.actual)}`);
  }
  return results.every((r) => r.ok) ? 0 : 1;
}

/** the outcome of a fixture case in one line: skipped, refused (status and error), or the action and its key fields */
function happened(actual: Record<string, unknown>): string {
  if (actual.skip === true) return 'skipped (204)';
  if (typeof actual.status === 'number') return `refused ${actual.status}: ${String(actual.error)}${actual.reason ? ` (${String(actual.reason)})` : ''}`;
  if (actual.actions) return `${(actual.actions as unknown[]).length} actions ${JSON.stringify(actual.actions)}`;
  if (actual.response !== undefined && actual.kind === undefined) return `answered ${JSON.stringify(actual.response)}`;
  return `${String(actual.kind ?? 'action')} ${JSON.stringify(actual)}`;
}
