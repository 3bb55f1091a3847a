import { HeraldError } from '../errors.js';
import type { CompiledMapping, MappingOutcome } from './compiled-mapping.js';
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
  async handle(request: HookRequest, options: { signedBy?: readonly CompiledMapping[] } = {}): Promise<MappingOutcome & { mappingId: string }> {
    const fault = payloadFault(request.payload);
    if (fault) throw new HeraldError('HERALD_BAD_REQUEST', fault);
    const mapping = await this.find(request, options.signedBy ?? this.mappings);
    if (!mapping) throw new HeraldError('HERALD_MAPPING_NOT_FOUND', `no hook mapping for "${request.path}"`);
    return { ...(await mapping.apply(request)), mappingId: mapping.id };
  }
}
