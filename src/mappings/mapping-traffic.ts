import type { Mapping } from '../config/sections/mapping-schema.js';
import type { MappingTraffic } from '../config/sections/traffic-schema.js';
import type { AgentAction } from './hook-action.js';
import { compileTemplate, TemplateSyntaxError, type CompiledTemplate } from './templates/template.js';
import type { TemplateScope } from './templates/template-scope.js';

/** A mapping's traffic settings, compiled: what the runtime admits its runs by, and its coalescing key. */
export interface CompiledTraffic {
  traffic: MappingTraffic;
  /** the action with its rendered coalescing key (`coalesce.key`, else its session key: '' for a mapping without one) */
  keyed(action: AgentAction, scope: TemplateScope): Promise<AgentAction>;
}

/** undefined for a mapping that governs nothing; faults name the field */
export function compileMappingTraffic(mapping: Mapping, faults: string[]): CompiledTraffic | undefined {
  const traffic: MappingTraffic = {
    ...(mapping.concurrency !== undefined && { concurrency: mapping.concurrency }),
    ...(mapping.rate && { rate: mapping.rate }),
    ...(mapping.coalesce && { coalesce: mapping.coalesce }),
  };
  const fields = Object.keys(traffic);
  if (!fields.length) return undefined;
  // a wake is one system event on the main session, already coalesced by the heartbeat: nothing to govern
  if (mapping.action === 'wake') faults.push(`${fields[0]}: governs agent runs; a wake mapping starts none`);
  let key: CompiledTemplate | undefined;
  if (mapping.coalesce?.key !== undefined) {
    try {
      key = compileTemplate(mapping.coalesce.key);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      faults.push(`coalesce.key: template error in ${JSON.stringify(mapping.coalesce.key)}: ${error.message}`);
    }
  }
  return {
    traffic,
    async keyed(action, scope) {
      if (!traffic.coalesce) return action;
      const coalesceKey = key ? (await key.render(scope)).trim() : (action.sessionKey ?? '');
      return Object.assign({}, action, { coalesceKey });
    },
  };
}
