import type { MappingAuth, MappingConfig } from '../config/sections/mapping-schema.js';

/** what every mapping of a preset's path shares: the sender's signature and its delivery id */
export interface PresetRouteBase {
  /** the mapping ids' prefix, the preset's name: `github` gives `github-issue`, ... */
  prefix: string;
  path: string;
  /** absent: the path takes the hook token only */
  auth?: MappingAuth;
  /** the sender's delivery id, templated (`{{ headers.x-github-delivery }}`) */
  idempotencyKey: string;
  /** the body's fields that hold a credential (Discord's interaction `token`): a retained payload keeps `…` for them */
  retainMasked?: string[];
}

/**
 * The mapping maker of a preset: `route(id, when, fields)` is one mapping of the preset's path,
 * matched by a JSONata predicate, with the auth and delivery key every mapping of that path must
 * share (a request admitted by its signature is handled only by mappings that declare it).
 */
export function presetRoutes(base: PresetRouteBase): (id: string, when: string, fields: Omit<MappingConfig, 'id' | 'match' | 'auth' | 'idempotencyKey' | 'retainMasked'>) => MappingConfig {
  return (id, when, fields) => ({
    id: `${base.prefix}-${id}`,
    match: { path: base.path, when },
    ...(base.auth && { auth: base.auth }),
    idempotencyKey: base.idempotencyKey,
    ...(base.retainMasked && { retainMasked: base.retainMasked }),
    ...fields,
  });
}

/** `$not(<field> in [...events])`: the predicate of a preset's first mapping, which skips what the user did not list */
export function notListed(field: string, events: readonly string[]): string {
  return `$not(${field} in ${JSON.stringify(events)})`;
}
