import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { formatIssues } from '../../config/loading/format-issues.js';
import { ConfigError, HeraldError } from '../../errors.js';
import { MAPPING_FILE_EXTENSIONS, readMappingFile } from './mapping-files.js';
import { MappingsEngine } from '../mappings-engine.js';
import { trimSlashes } from '../hook-request.js';
import { parseUrlEncoded } from '../payload/form-payload.js';
import { parseExactJson } from '../../utils/exact-json.js';
import { describeDirectGrant } from '../../tools/direct-call.js';
import type { HookAction } from '../hook-action.js';
import type { MappingContext } from '../mapping-context.js';
import type { MappingSource } from './mapping-source.js';
import { compileMappingSources, type MappingInputs } from './resolve-mappings.js';

/** One case of a `<x>.test.json` file beside the mapping file `<x>.yaml`. */
export const fixtureCaseSchema = z
  .object({
    name: z.string().optional().describe('What the case shows; printed when it fails.'),
    path: z.string().optional().describe('Hook path; defaults to the first match.path of the mapping file.'),
    payload: z.unknown().optional().describe('The request body (JSON); {} when neither payload nor form is given.'),
    form: z.string().optional().describe('An application/x-www-form-urlencoded body instead of payload (Twilio, Slack), read as herald reads one: repeated keys become arrays.'),
    headers: z.record(z.string(), z.string()).optional().describe('Request headers (names are lower-cased).'),
    query: z.record(z.string(), z.string()).optional().describe('Query parameters.'),
    expect: z
      .record(z.string(), z.unknown())
      .describe("Fields the outcome must have: action fields ({kind, message, ...}), {skip: true}, or {status, error} for a refusal; idempotencyKey: the rendered key; response: a handshake's answer ({status, body, contentType}) or, for a mapping awaiting its reply, {waitMs, status, contentType, fallback}. toolCall: a direct call (action \"tool\") as resolved, never made ({tool, arguments, decision}: the fields given must match). toolCalls (tool names, or {tool, arguments} with the arguments that must be there) and replyIncludes (texts the reply must contain, case-insensitive) are checked by herald eval, which runs the agent's turn."),
  })
  .strict();
export const fixtureFileSchema = z.array(fixtureCaseSchema);

/** `expect` keys about the agent's turn (its tool calls, its reply): only `herald eval` checks them */
export const AGENT_EXPECTATIONS = new Set(['toolCalls', 'replyIncludes']);
export type FixtureCase = z.infer<typeof fixtureCaseSchema>;

export interface FixtureResult {
  label: string;
  ok: boolean;
  /** the outcome: the action, {skip: true}, or {status, error, details?} */
  actual: Record<string, unknown>;
  /** the expected fields that differed */
  mismatches: string[];
}

/** `github.test.json` -> `github.yaml` (or .yml, .json, .json5) beside it. */
export function mappingFileOf(fixtureFile: string): string | undefined {
  const base = fixtureFile.slice(0, -'.test.json'.length);
  return MAPPING_FILE_EXTENSIONS.map((ext) => base + ext).find((file) => fs.existsSync(file));
}

/** Every fixture file under a folder, subfolders included, in name order. */
export function findFixtureFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.json'))
    .sort()
    .map((name) => path.join(dir, name));
}

async function outcomeOf(engine: MappingsEngine, request: Parameters<MappingsEngine['handle']>[0]): Promise<Record<string, unknown>> {
  try {
    const outcome = await engine.handle(request);
    // the rendered idempotencyKey beside the action, so a fixture can pin the key a delivery gets
    const key = outcome.idempotencyKey === undefined ? {} : { idempotencyKey: outcome.idempotencyKey };
    if (outcome.type === 'actions') return { actions: outcome.actions, ...key };
    // a handshake's answer, or what an action awaiting its reply answers (expect.response)
    if (outcome.type === 'respond') return { response: outcome.response };
    const response = outcome.response === undefined ? {} : { response: outcome.response };
    if (outcome.type === 'skip') return { skip: true, ...key };
    return { ...outcome.action, ...resolvedCall(outcome.action), ...key, ...response };
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    const reason = error.cause instanceof Error ? { reason: error.cause.message } : {};
    return { status: error.status, error: error.message, ...(error.details !== undefined && { details: error.details }), ...reason };
  }
}

/** a direct call as a fixture sees it: its rendered arguments and the grant decision, never made */
function resolvedCall(action: HookAction): { toolCall?: Record<string, unknown> } {
  if (action.kind !== 'tool' || !action.call) return {};
  const decision = describeDirectGrant(action.call.tool, { outside: action.call.outside, signed: action.signed === true, mapping: action.tools });
  return { toolCall: { tool: action.call.tool, arguments: action.call.arguments, decision } };
}

/** `expect.toolCall` holds the fields that matter (the decision's wording may be left out); any other key, the whole value */
function matches(key: string, actual: unknown, expected: unknown): boolean {
  if (key !== 'toolCall' || !actual || !expected || typeof expected !== 'object') return isDeepStrictEqual(actual, expected);
  return Object.entries(expected).every(([field, value]) => isDeepStrictEqual((actual as Record<string, unknown>)[field], value));
}

/** Runs the cases of one fixture file against the mappings of its sibling file, and only those. */
export async function runMappingFixtures(fixtureFile: string, loaded: Pick<MappingInputs, 'config'>, ctx: MappingContext): Promise<FixtureResult[]> {
  const mappingFile = mappingFileOf(fixtureFile);
  if (!mappingFile) throw new ConfigError([`${fixtureFile}: no mapping file beside it (${MAPPING_FILE_EXTENSIONS.map((e) => `*${e}`).join(', ')})`]);
  const raws = await readMappingFile(mappingFile);
  return runFixtureFile(fixtureFile, raws.map((raw, i) => ({ origin: `${mappingFile}[${i}]`, raw })), loaded, ctx);
}

/** Runs the cases of a fixture file against a mapping set (a file's, a preset's). */
export async function runFixtureFile(fixtureFile: string, sources: MappingSource[], loaded: Pick<MappingInputs, 'config'>, ctx: MappingContext): Promise<FixtureResult[]> {
  const parsed = fixtureFileSchema.safeParse(parseExactJson(fs.readFileSync(fixtureFile, 'utf8')));
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error.issues, fixtureFile));
  const engine = new MappingsEngine(await compileMappingSources(sources, loaded, ctx));
  const defaultPath = sources.map(({ raw }) => (raw as { match?: { path?: string } })?.match?.path).find((p) => p !== undefined);

  const results: FixtureResult[] = [];
  for (const [index, testCase] of parsed.data.entries()) {
    const hookPath = trimSlashes(testCase.path ?? defaultPath ?? '');
    const actual = await outcomeOf(engine, {
      path: hookPath,
      payload: testCase.form !== undefined ? parseUrlEncoded(testCase.form) : (testCase.payload ?? {}),
      headers: Object.fromEntries(Object.entries(testCase.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      query: testCase.query ?? {},
      url: `http://127.0.0.1${loaded.config.hooks.path}/${hookPath}`,
    });
    const mismatches = Object.entries(testCase.expect)
      // what the agent does with the action is checked by `herald eval`, which runs its turn
      .filter(([key]) => !AGENT_EXPECTATIONS.has(key))
      .filter(([key, value]) => !matches(key, actual[key], value))
      .map(([key, value]) => `${key}: expected ${JSON.stringify(value)}, got ${JSON.stringify(actual[key])}`);
    results.push({ label: `${path.basename(fixtureFile)} #${index + 1}${testCase.name ? ` (${testCase.name})` : ''}`, ok: mismatches.length === 0, actual, mismatches });
  }
  return results;
}
