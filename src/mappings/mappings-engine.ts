import { HeraldError } from '../errors.js';
import type { CompiledMapping, MappingOutcome, PreparedMapping } from './compiled-mapping.js';
import { payloadFault, type HookRequest } from './hook-request.js';
import { copyWith } from '../utils/copy-with.js';
import { MappingRoute } from './routing/mapping-route.js';

/**
 * Applies the first mapping that matches a request; built-ins first, then config, folder, presets.
 * Mappings are indexed by `match.path` at load: a request only meets the mappings of its own path
 * and those without a path, in their configured order, so lookup does not grow with the number of
 * mappings and a `match.when` is evaluated only where path (and source) already agree.
 */
export class MappingsEngine {
  /** per path: its own mappings and the path-less ones, merged in configured order */
  private byPath = new Map<string, MappingRoute>();
  /** mappings without `match.path`: what a path with no mapping of its own meets */
  private anyPath = new MappingRoute([]);
  private signedByPath = new Map<string, CompiledMapping[]>();
  /** by id: the first of an id wins, as it would win a match */
  private byId = new Map<string, CompiledMapping>();
  private current: CompiledMapping[] = [];

  constructor(mappings: CompiledMapping[]) {
    this.replace(mappings);
  }

  get mappings(): readonly CompiledMapping[] {
    return this.current;
  }

  /**
   * Swaps in a new set of mappings (a config reload): the indexes are built aside and switched in
   * one step, so a request sees either the old set or the new one, never a mix.
   */
  replace(mappings: CompiledMapping[]): void {
    const byPath = new Map<string, CompiledMapping[]>();
    const anyPath: CompiledMapping[] = [];
    const signedByPath = new Map<string, CompiledMapping[]>();
    const byId = new Map<string, CompiledMapping>();
    for (const mapping of mappings) {
      if (!byId.has(mapping.id)) byId.set(mapping.id, mapping);
      if (mapping.path === undefined) {
        anyPath.push(mapping);
        for (const list of byPath.values()) list.push(mapping);
        continue;
      }
      let list = byPath.get(mapping.path);
      if (!list) byPath.set(mapping.path, (list = [...anyPath]));
      list.push(mapping);
      if (mapping.signature) {
        const signed = signedByPath.get(mapping.path) ?? [];
        signed.push(mapping);
        signedByPath.set(mapping.path, signed);
      }
    }
    this.byPath = new Map([...byPath].map(([path, list]) => [path, new MappingRoute(list)]));
    this.anyPath = new MappingRoute(anyPath);
    this.signedByPath = signedByPath;
    this.byId = byId;
    this.current = mappings;
  }

  /** the mapping of an id (a receipt's, a run's), without a scan of every mapping */
  mapping(id: string): CompiledMapping | undefined {
    return this.byId.get(id);
  }

  async find(request: HookRequest, among?: readonly CompiledMapping[]): Promise<CompiledMapping | undefined> {
    return this.match(request, among);
  }

  /**
   * `find`, answered at once while every match asked answers at once (most do: a path, a source,
   * an equality), so the hook intake awaits nothing for them; a promise from the first template
   * whose answer is on its way.
   */
  private match(request: HookRequest, among?: readonly CompiledMapping[]): CompiledMapping | undefined | Promise<CompiledMapping | undefined> {
    const candidates = among ?? (this.byPath.get(request.path) ?? this.anyPath).candidates(request);
    for (let i = 0; i < candidates.length; i++) {
      const matched = candidates[i]!.matches(request);
      if (matched === true) return candidates[i];
      if (matched !== false) return this.matchAwaiting(request, candidates, i, matched);
    }
    return undefined;
  }

  /** the rest of `match` from the candidate at `from`, whose answer is on its way */
  private async matchAwaiting(request: HookRequest, candidates: readonly CompiledMapping[], from: number, answer: Promise<boolean>): Promise<CompiledMapping | undefined> {
    if (await answer) return candidates[from];
    for (let i = from + 1; i < candidates.length; i++) {
      const matched = candidates[i]!.matches(request);
      if (matched === true || (matched !== false && (await matched))) return candidates[i];
    }
    return undefined;
  }

  /** the mappings of a path that answer a GET handshake (`respond.method: GET`): none means GET is 405 there */
  getHandshakes(path: string): CompiledMapping[] {
    return (this.byPath.get(path)?.mappings ?? []).filter((m) => m.path === path && m.respond?.method === 'GET');
  }

  /**
   * The body fields a retained payload of this path keeps `…` in place of: every mapping's of the
   * path (`retainMasked`), whichever took the request, so a request no mapping took (or one that
   * failed before its mapping was known) is masked as well.
   */
  retainMasked(path: string): readonly string[] {
    const fields = new Set((this.byPath.get(path) ?? this.anyPath).mappings.flatMap((m) => m.retainMasked ?? []));
    return [...fields];
  }

  /** the mappings of a path that declare `auth`: the signatures a request there may carry instead of the token */
  signedMappings(path: string): readonly CompiledMapping[] {
    return this.signedByPath.get(path) ?? [];
  }

  /**
   * Applies the first matching mapping. `signedBy`: the request was admitted by its signature,
   * not the hook token, so only the mappings whose auth it satisfied may take it.
   */
  async handle(
    request: HookRequest,
    options: { signedBy?: readonly CompiledMapping[] } = {},
  ): Promise<MappingOutcome & { mappingId: string; idempotencyKey?: string; response?: Record<string, unknown> }> {
    const { run, reply, pure: _pure, ...prepared } = await this.prepare(request, options);
    // a handshake has no reply awaited: its own `response` is never overwritten
    return { ...(await run()), ...prepared, ...(reply && { response: reply.declared }) } as MappingOutcome & { mappingId: string; idempotencyKey?: string; response?: Record<string, unknown> };
  }

  /**
   * `handle` up to the mapping's side effects: the first matching mapping has checked the schema
   * and rendered its templates (its `idempotencyKey` among them); `run` does the transform and
   * validation. The hook route claims the key in between, so a repeat runs no transform.
   */
  prepare(request: HookRequest, options: { signedBy?: readonly CompiledMapping[] } = {}): Prepared | Promise<Prepared> {
    const fault = payloadFault(request.payload);
    if (fault) throw new HeraldError('HERALD_BAD_REQUEST', fault);
    // answered at once when its steps are (the built-in /wake and /agent, most matches): the caller awaits only a promise
    const found = this.match(request, options.signedBy);
    const { signedBy } = options;
    // the mapping's own auth passed: its runs may use what it grants to signed requests
    const take = (mapping: CompiledMapping | undefined) => prepareMapping(mapping && signedBy?.includes(mapping) ? copyWith(request, { signed: true }) : request, mapping);
    return found instanceof Promise ? found.then(take) : take(found);
  }
}

type Prepared = PreparedMapping & { mappingId: string };

function prepareMapping(request: HookRequest, mapping: CompiledMapping | undefined): Prepared | Promise<Prepared> {
  if (!mapping) throw new HeraldError('HERALD_MAPPING_NOT_FOUND', `no hook mapping for "${request.path}"`);
  if (!mapping.prepare) return { run: () => mapping.apply(request), mappingId: mapping.id };
  const prepared = mapping.prepare(request);
  return prepared instanceof Promise ? prepared.then((done) => copyWith(done, { mappingId: mapping.id })) : copyWith(prepared, { mappingId: mapping.id });
}
