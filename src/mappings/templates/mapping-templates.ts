import { isModelAllowed, resolveModelRef } from '../../models/model-refs.js';
import { missingKeyMessage, missingKeyOf } from '../../models/model-keys.js';
import type { MappingContext } from '../mapping-context.js';
import { thinkingLevels, type Mapping } from '../../config/sections/mapping-schema.js';
import { compileTemplate, TemplateSyntaxError, type CompiledTemplate } from './template.js';
import type { TemplateScope } from './template-scope.js';
import { storableIdempotencyKey } from '../idempotency-key.js';

/** The mapping fields that may hold `{{ expr }}`, and the action field each one fills. */
const TEMPLATED = { textTemplate: 'text', messageTemplate: 'message', name: 'name', sessionKey: 'sessionKey', to: 'to', threadId: 'threadId', model: 'model', thinking: 'thinking' } as const;
type TemplatedField = keyof typeof TEMPLATED;

/** fields whose empty rendering means "not given" (the default applies), unlike text and message */
const OPTIONAL = new Set<string>(['name', 'sessionKey', 'to', 'threadId', 'model', 'thinking']);

export interface MappingTemplates {
  /** the raw action fields (text, message, name, ... and the static ones), before validation */
  render(scope: TemplateScope): Promise<Record<string, unknown>>;
  /** the rendered `idempotencyKey` as a storable key; undefined when the mapping has none or it renders empty */
  idempotencyKey(scope: TemplateScope): Promise<string | undefined>;
}

/**
 * Compiles every templated field of a mapping, once. Syntax errors and static values that can
 * never pass (an unknown or disallowed model, a bad thinking level or channel) go to `faults`.
 */
export function compileMappingTemplates(mapping: Mapping, ctx: MappingContext, faults: string[], warnings: string[] = []): MappingTemplates {
  const compiled: [string, CompiledTemplate][] = [];
  for (const field of Object.keys(TEMPLATED) as TemplatedField[]) {
    const source = mapping[field];
    if (source === undefined) continue;
    try {
      compiled.push([TEMPLATED[field], compileTemplate(source)]);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      faults.push(`${field}: template error in ${JSON.stringify(source)}: ${error.message}`);
      continue;
    }
    if (!compiled.at(-1)![1].dynamic) checkStatic(field, source, ctx, faults, warnings);
  }
  // not an action field: it decides whether the request is processed at all, before any transform
  let idempotencyKey: CompiledTemplate | undefined;
  if (mapping.idempotencyKey !== undefined) {
    try {
      idempotencyKey = compileTemplate(mapping.idempotencyKey);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      faults.push(`idempotencyKey: template error in ${JSON.stringify(mapping.idempotencyKey)}: ${error.message}`);
    }
    // a fixed key would make every request after the first a replay of it
    if (idempotencyKey && !idempotencyKey.dynamic) {
      faults.push(`idempotencyKey: ${JSON.stringify(mapping.idempotencyKey)} has no {{ }}: every request would share one key`);
    }
  }
  if (mapping.channel !== undefined && !ctx.channelNames.includes(mapping.channel)) {
    faults.push(`channel: "${mapping.channel}" is not one of ${ctx.channelNames.join(', ')}`);
  }

  const fixed: Record<string, unknown> = {};
  if (mapping.wakeMode !== undefined) Object.assign(fixed, { wakeMode: mapping.wakeMode, mode: mapping.wakeMode });
  if (mapping.deliver !== undefined) fixed.deliver = mapping.deliver;
  if (mapping.sessionMode !== undefined) fixed.sessionMode = mapping.sessionMode;
  if (mapping.sessionMode === 'persistent' && mapping.sessionKey === undefined) faults.push('sessionMode: "persistent" needs a sessionKey on the mapping (the conversation it continues)');
  if (mapping.sessionMode === 'isolated' && mapping.sessionKey !== undefined) faults.push('sessionMode: "isolated" runs in a fresh session; remove sessionKey or use "persistent"');
  if (mapping.channel !== undefined) fixed.channel = mapping.channel;
  if (mapping.timeoutSeconds !== undefined) fixed.timeoutSeconds = mapping.timeoutSeconds;
  if (mapping.agentId !== undefined) {
    fixed.agentId = mapping.agentId;
    if (!ctx.config.agents.list.some((a) => a.id === mapping.agentId)) {
      warnings.push(`agentId: "${mapping.agentId}" is not a configured agent: its runs go to the default agent (OpenClaw's fallback)`);
    }
  }

  return {
    async render(scope) {
      const raw: Record<string, unknown> = { ...fixed };
      for (const [field, template] of compiled) {
        const rendered = await template.render(scope);
        const value = OPTIONAL.has(field) ? rendered.trim() : rendered;
        if (value === '' && OPTIONAL.has(field)) continue;
        raw[field] = value;
      }
      return raw;
    },
    async idempotencyKey(scope) {
      // `gmail:{{account}}:{{id}}` without an id is no key, not one key shared by every such request
      const rendered = await idempotencyKey?.renderComplete(scope);
      return rendered === undefined ? undefined : storableIdempotencyKey(rendered);
    },
  };
}

function checkStatic(field: TemplatedField, value: string, ctx: MappingContext, faults: string[], warnings: string[]): void {
  if (field === 'model' && value) {
    if (!resolveModelRef(value, ctx.config)) faults.push(`model: unknown model "${value}"`);
    else if (!isModelAllowed(value, ctx.config)) faults.push(`model: "${value}" is not in agents.defaults.models`);
    else {
      const missing = missingKeyOf(value, ctx.config);
      if (missing) warnings.push(`model: ${missingKeyMessage(value, missing)}; runs on it will fail`);
    }
  }
  if (field === 'thinking' && value && !(thinkingLevels as readonly string[]).includes(value)) {
    faults.push(`thinking: "${value}" is not one of ${thinkingLevels.join(', ')}`);
  }
}
