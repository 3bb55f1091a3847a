import { HeraldError } from '../errors.js';
import type { CompiledMapping, MappingOutcome, PreparedMapping } from './compiled-mapping.js';
import { payloadFault, type HookRequest } from './hook-request.js';

/** Applies the first mapping that matches a request; built-ins first, then config, folder, presets. */
export class MappingsEngine {
  constructor(readonly mappings: CompiledMapping[]) {}

  async find(request: HookRequest, among: readonly CompiledMapping[] = this.mappings): Promise<CompiledMapping | undefined> {
    for (const mapping of among) {
      if (await mapping.matches(request)) return mapping;
    }
    return undefined;
  }

  /** the mappings of a path that declare `auth`: the signatures a request there may carry instead of the token */
  signedMappings(path: string): CompiledMapping[] {
    return this.mappings.filter((m) => m.signature && m.path === path);
  }

  /**
   * Applies the first matching mapping. `signedBy`: the request was admitted by its signature,
   * not the hook token, so only the mappings whose auth it satisfied may take it.
   */
  async handle(
    request: HookRequest,
    options: { signedBy?: readonly CompiledMapping[] } = {},
  ): Promise<MappingOutcome & { mappingId: string; idempotencyKey?: string }> {
    const { run, ...prepared } = await this.prepare(request, options);
    return { ...(await run()), ...prepared };
  }

  /**
   * `handle` up to the mapping's side effects: the first matching mapping has checked the schema
   * and rendered its templates (its `idempotencyKey` among them); `run` does the transform and
   * validation. The hook route claims the key in between, so a repeat runs no transform.
   */
  async prepare(request: HookRequest, options: { signedBy?: readonly CompiledMapping[] } = {}): Promise<PreparedMapping & { mappingId: string }> {
    const fault = payloadFault(request.payload);
    if (fault) throw new HeraldError('HERALD_BAD_REQUEST', fault);
    const mapping = await this.find(request, options.signedBy ?? this.mappings);
    if (!mapping) throw new HeraldError('HERALD_MAPPING_NOT_FOUND', `no hook mapping for "${request.path}"`);
    const prepared = mapping.prepare ? await mapping.prepare(request) : { run: () => mapping.apply(request) };
    return { ...prepared, mappingId: mapping.id };
  }
}
