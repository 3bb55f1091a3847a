import { HeraldError } from '../errors.js';
import type { CompiledMapping, MappingOutcome } from './compiled-mapping.js';
import { payloadFault, type HookRequest } from './hook-request.js';

/** Applies the first mapping that matches a request; built-ins first, then config, folder, presets. */
export class MappingsEngine {
  constructor(readonly mappings: CompiledMapping[]) {}

  async find(request: HookRequest): Promise<CompiledMapping | undefined> {
    for (const mapping of this.mappings) {
      if (await mapping.matches(request)) return mapping;
    }
    return undefined;
  }

  async handle(request: HookRequest): Promise<MappingOutcome & { mappingId: string }> {
    const fault = payloadFault(request.payload);
    if (fault) throw new HeraldError('HERALD_BAD_REQUEST', fault);
    const mapping = await this.find(request);
    if (!mapping) throw new HeraldError('HERALD_MAPPING_NOT_FOUND', `no hook mapping for "${request.path}"`);
    return { ...(await mapping.apply(request)), mappingId: mapping.id };
  }
}
