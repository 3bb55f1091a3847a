import fs from 'node:fs';
import path from 'node:path';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import { loadYaml } from '../../config/loading/yaml-module.js';
import type { CompiledMapping } from '../../mappings/compiled-mapping.js';
import { compileDraft, type DraftFault } from '../../mappings/loading/draft-mapping.js';
import { trimSlashes, type HookRequest } from '../../mappings/hook-request.js';
import { fixtureFileSchema, type FixtureCase } from '../../mappings/loading/mapping-fixtures.js';
import { parseUrlEncoded } from '../../mappings/payload/form-payload.js';
import { MappingsEngine } from '../../mappings/mappings-engine.js';
import type { MappingContext } from '../../mappings/mapping-context.js';
import type { ReceiptRecord, Store } from '../../store/port.js';
import { dryRun, type DryRunOutcome } from './dry-run.js';
import { hooksPrefix } from '../../config/hooks-path.js';
import { parseExactJson } from '../../utils/exact-json.js';
import { PACKAGE_ROOT } from '../../utils/install-layout.js';

export interface MappingLabDeps {
  config: HeraldConfig;
  store: Store;
  engine: MappingsEngine;
  ctx: MappingContext;
}

export interface MappingTestInput {
  /** a draft to test instead of the configured mappings (it takes the place of the mapping of its id, or goes first) */
  draft?: unknown;
  path: string;
  payload: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/**
 * Where a mapping's fixtures are, and the set of mappings they are shared by: a mapping file's
 * sibling (`github.test.json` beside `github.yaml`, origin `…/github.yaml[2]`), or a preset's
 * `plugins/<id>/fixtures/<id>.json` (origin `hooks.presets[0] (github, mapping 1)`), shared by
 * the mappings of that one entry.
 */
function fixtureSourceOf(origin: string | undefined): { file: string; group: string } | undefined {
  const preset = origin ? /^(.*) \(([\w-]+), mapping \d+\)$/.exec(origin) : null;
  if (preset) return { file: path.join(PACKAGE_ROOT, 'plugins', preset[2]!, 'fixtures', `${preset[2]}.json`), group: `${preset[1]} (${preset[2]})` };
  const file = origin?.replace(/\[\d+\]$/, '');
  if (!file || !/\.(ya?ml|json5?)$/.test(file)) return undefined;
  const fixtures = file.replace(/\.(ya?ml|json5?)$/, '.test.json');
  return { file: fixtures, group: fixtures };
}

function readFixtures(fixtureFile: string): FixtureCase[] {
  if (!fs.existsSync(fixtureFile)) return [];
  try {
    const parsed = fixtureFileSchema.safeParse(JSON.parse(fs.readFileSync(fixtureFile, 'utf8')));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** a request of a dry run, a backtest or an eval, as the hook surface would have made it */
export function labRequest(config: HeraldConfig, path: string, payload: unknown, headers: Record<string, string> = {}, query: Record<string, string> = {}): HookRequest {
  const p = trimSlashes(path);
  return {
    path: p,
    payload,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    query,
    url: `http://${config.gateway.host}:${config.gateway.port}${hooksPrefix(config.hooks.path)}/${p}`,
  };
}

/**
 * The fixture cases of each mapping. A fixture file holds the cases of every mapping of its
 * mapping file (or preset), and names none of them: a case belongs to the mapping of that set its
 * request meets first, as `herald hooks test` would apply it (a case no mapping matches belongs to none).
 */
export async function fixturesByMapping(
  engine: MappingsEngine,
  request: (path: string, payload: unknown, headers?: Record<string, string>, query?: Record<string, string>) => HookRequest,
): Promise<Map<string, FixtureCase[]>> {
  const groups = new Map<string, { file: string; members: CompiledMapping[] }>();
  for (const m of engine.mappings) {
    const source = fixtureSourceOf(m.origin);
    if (!source) continue;
    const group = groups.get(source.group) ?? { file: source.file, members: [] };
    group.members.push(m);
    groups.set(source.group, group);
  }
  const owned = new Map<string, FixtureCase[]>();
  for (const { file, members } of groups.values()) {
    const defaultPath = members.map((m) => m.path).find((p) => p !== undefined) ?? '';
    for (const c of readFixtures(file)) {
      const found = await engine.find(request(c.path ?? defaultPath, c.form !== undefined ? parseUrlEncoded(c.form) : (c.payload ?? {}), c.headers, c.query), members).catch(() => undefined);
      if (found) owned.set(found.id, [...(owned.get(found.id) ?? []), c]);
    }
  }
  return owned;
}

/** a signing secret or verify token never leaves herald: shown as set, not as its value */
function redacted(definition: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!definition?.auth && !definition?.respond) return definition;
  const out = { ...definition };
  if (definition.auth) {
    const auth = definition.auth as { secret?: string; sharedKey?: string };
    out.auth = { ...auth, ...(auth.secret !== undefined && { secret: '(set)' }), ...(auth.sharedKey !== undefined && { sharedKey: '(set)' }) };
  }
  const respond = definition.respond as { secret?: string; verifyToken?: { query: string } } | undefined;
  if (respond) {
    out.respond = {
      ...respond,
      ...(respond.secret !== undefined && { secret: '(set)' }),
      ...(respond.verifyToken && { verifyToken: { ...respond.verifyToken, token: '(set)' } }),
    };
  }
  return out;
}

/**
 * The operator's workbench for mappings: what is configured (and where), a dry run of a request
 * against the configured mappings or a draft, and a backtest of a draft over retained requests.
 */
export class MappingLab {
  constructor(private readonly deps: MappingLabDeps) {}

  /** The mappings in the order they are tried, each with its fixture cases (fixturesByMapping). */
  async list() {
    const mappings = this.deps.engine.mappings;
    const owned = await fixturesByMapping(this.deps.engine, (p, payload, h, q) => this.request(p, payload, h, q));
    const { stringify } = await loadYaml();
    return mappings.map((m) => {
      const match = (m.definition?.match as Record<string, unknown> | undefined) ?? (m.path ? { path: m.path } : {});
      const fixtureFile = fixtureSourceOf(m.origin)?.file;
      return {
        id: m.id,
        origin: m.origin ?? 'unknown',
        path: m.path ?? null,
        builtIn: m.origin === 'built-in',
        signed: m.signature !== undefined,
        retainPayloads: m.retainPayloads ?? this.deps.config.hooks.retainPayloads,
        match,
        matchText: stringify(match, { lineWidth: 0 }).trimEnd(),
        definition: redacted(m.definition) ?? null,
        fixtureFile: fixtureFile && fs.existsSync(fixtureFile) ? fixtureFile : null,
        fixtures: owned.get(m.id) ?? [],
      };
    });
  }

  private request(path: string, payload: unknown, headers?: Record<string, string>, query?: Record<string, string>): HookRequest {
    return labRequest(this.deps.config, path, payload, headers, query);
  }

  /** the configured mappings with a draft in place of the mapping of its id (or first after the built-ins) */
  private withDraft(draft: CompiledMapping): MappingsEngine {
    const current = this.deps.engine.mappings;
    if (current.some((m) => m.id === draft.id)) return new MappingsEngine(current.map((m) => (m.id === draft.id ? draft : m)));
    const builtIns = current.filter((m) => m.origin === 'built-in');
    return new MappingsEngine([...builtIns, draft, ...current.filter((m) => m.origin !== 'built-in')]);
  }

  private async draftEngine(draft: unknown): Promise<{ engine?: MappingsEngine; draft?: CompiledMapping; faults: DraftFault[] }> {
    const compiled = await compileDraft(draft, this.deps.config, this.deps.ctx);
    if (!compiled.mapping) return { faults: compiled.faults };
    return { engine: this.withDraft(compiled.mapping), draft: compiled.mapping, faults: [] };
  }

  async test(input: MappingTestInput): Promise<{ faults: DraftFault[]; outcome?: DryRunOutcome }> {
    let engine = this.deps.engine;
    if (input.draft !== undefined) {
      const drafted = await this.draftEngine(input.draft);
      if (!drafted.engine) return { faults: drafted.faults };
      engine = drafted.engine;
    }
    return { faults: [], outcome: await dryRun(engine, this.request(input.path, input.payload, input.headers, input.query)) };
  }

  /**
   * The draft over the newest `limit` retained requests of its path (or `path`): per request,
   * the outcome under the current mappings and under the draft, and whether they differ.
   */
  async backtest(input: { draft: unknown; path?: string; limit: number }): Promise<{
    faults: DraftFault[];
    path?: string;
    results: { receipt: ReceiptRecord; before: DryRunOutcome; after: DryRunOutcome; changed: boolean }[];
  }> {
    const drafted = await this.draftEngine(input.draft);
    if (!drafted.engine) return { faults: drafted.faults, results: [] };
    const path = input.path !== undefined ? trimSlashes(input.path) : drafted.draft!.path;
    if (path === undefined) throw new HeraldError('HERALD_INVALID_FIELD', 'path is required when the draft has no match.path', { param: 'path' });
    const now = Date.now();
    const retained = await this.deps.store.receipts.retainedForPath(path, input.limit, now);
    const results = [];
    for (const { receipt, payload } of retained) {
      const text = Buffer.from(payload.body).toString('utf8');
      let body: unknown;
      try {
        body = text.trim() ? parseExactJson(text) : {};
      } catch {
        continue; // a body that was refused as bad JSON maps to nothing either way
      }
      const request = this.request(path, body, payload.headers, payload.query);
      const before = await dryRun(this.deps.engine, request, receipt.receivedAt);
      const after = await dryRun(drafted.engine, request, receipt.receivedAt);
      results.push({ receipt, before, after, changed: JSON.stringify(strip(before)) !== JSON.stringify(strip(after)) });
    }
    return { faults: [], path, results };
  }
}

/** the wrapper's random marker id differs between two renderings of one prompt: compare without it */
function strip(outcome: DryRunOutcome): unknown {
  if (outcome.type !== 'action') return outcome;
  const { prompt: _prompt, ...rest } = outcome;
  return rest;
}
