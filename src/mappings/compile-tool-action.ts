import type { Mapping } from '../config/sections/mapping-schema.js';
import { globMatcher } from '../tools/glob-match.js';
import { BUILTIN_SERVER } from '../tools/tool-policy.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { compileExpression, describeJsonataError, NOT_READ, type CompiledExpression } from './templates/jsonata-expression.js';
import { compileTemplate, TemplateSyntaxError, type CompiledTemplate } from './templates/template.js';
import type { TemplateScope } from './templates/template-scope.js';

/** the rendered arguments' shape is checked by the mapping's caller, against the tool's schema when it is known */
export interface ToolArgumentsTemplate {
  render(scope: TemplateScope): Promise<Record<string, unknown>>;
}

/** one value of `arguments`: a string that is one `{{ expr }}` keeps the expression's type, other strings render as text */
type ArgumentPart = { kind: 'value'; value: unknown } | { kind: 'text'; template: CompiledTemplate } | { kind: 'typed'; expression: CompiledExpression } | { kind: 'array'; items: ArgumentPart[] } | { kind: 'object'; entries: [string, ArgumentPart][] };

const ONE_HOLE = /^\{\{([\s\S]*)\}\}$/;

/**
 * The compiled `tool`, `arguments` (or `argumentsTemplate`) and `then` of an `action: "tool"`
 * mapping. Faults that make the mapping never able to run go to `faults`: a tool of a server that
 * is not configured, one its own `tools.deny` (or `allow`) rules out, a template that does not parse.
 */
export function compileToolAction(mapping: Mapping, servers: readonly string[] | undefined, faults: string[]): ToolArgumentsTemplate | undefined {
  if (mapping.action !== 'tool') {
    for (const field of ['tool', 'arguments', 'argumentsTemplate', 'then'] as const) if (mapping[field] !== undefined) faults.push(`${field}: only an action "tool" mapping calls a tool (this one is "${mapping.action}")`);
    return undefined;
  }
  if (mapping.tool === undefined) {
    faults.push('tool: an action "tool" mapping names the tool it calls (<server>__<tool>)');
    return undefined;
  }
  const server = mapping.tool.slice(0, mapping.tool.indexOf('__'));
  if (servers && server !== BUILTIN_SERVER && !servers.includes(server)) faults.push(`tool: "${server}" is not a server of tools.mcpServers (${servers.length ? servers.join(', ') : 'none configured'}) nor ${BUILTIN_SERVER}`);
  const narrowing = mapping.tools;
  if ((narrowing?.allow && !globMatcher(narrowing.allow)(mapping.tool)) || (narrowing?.deny && globMatcher(narrowing.deny)(mapping.tool))) faults.push(`tools: its allow and deny rule out ${mapping.tool}, the tool this mapping calls: it could never run`);
  for (const field of ['messageTemplate', 'textTemplate', 'model', 'thinking', 'sessionKey', 'sessionMode', 'respond', 'coalesce'] as const) {
    if (mapping[field] !== undefined) faults.push(`${field}: an action "tool" mapping asks no model (it calls ${mapping.tool})`);
  }
  for (const field of ['channel', 'to', 'threadId', 'deliver'] as const) {
    if (mapping[field] !== undefined) faults.push(`${field}: an action "tool" mapping delivers its result with then (then.channel, then.to)`);
  }
  if (mapping.arguments !== undefined && mapping.argumentsTemplate !== undefined) faults.push('argumentsTemplate: give arguments or argumentsTemplate, not both');
  if (mapping.then?.message !== undefined) {
    try {
      compileTemplate(mapping.then.message);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      faults.push(`then.message: template error in ${JSON.stringify(mapping.then.message)}: ${error.message}`);
    }
  }
  if (mapping.argumentsTemplate !== undefined) {
    const text = ONE_HOLE.exec(mapping.argumentsTemplate.trim())?.[1] ?? mapping.argumentsTemplate;
    let expression: CompiledExpression;
    try {
      expression = compileExpression(text);
    } catch (error) {
      faults.push(`argumentsTemplate: syntax error in ${JSON.stringify(mapping.argumentsTemplate)}: ${describeJsonataError(error)}`);
      return undefined;
    }
    return {
      async render(scope) {
        const value = plain(await expression.evaluate(scope));
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ArgumentsShapeError('argumentsTemplate must yield an object (the arguments), not ' + (Array.isArray(value) ? 'an array' : value === undefined ? 'nothing' : typeof value));
        return value as Record<string, unknown>;
      },
    };
  }
  const parts: [string, ArgumentPart][] = [];
  for (const [key, value] of Object.entries(mapping.arguments ?? {})) {
    try {
      parts.push([key, compilePart(value)]);
    } catch (error) {
      faults.push(`arguments.${key}: template error: ${error instanceof TemplateSyntaxError ? error.message : describeJsonataError(error)}`);
    }
  }
  return {
    async render(scope) {
      const args: Record<string, unknown> = {};
      for (const [key, part] of parts) {
        const value = await renderPart(part, scope);
        if (value !== undefined) args[key] = value;
      }
      return args;
    },
  };
}

/** a template made an arguments value that is not an object: the mapping's fault, named on its receipt */
export class ArgumentsShapeError extends Error {}

function compilePart(value: unknown): ArgumentPart {
  if (typeof value === 'string') {
    const hole = ONE_HOLE.exec(value.trim());
    if (hole && !hole[1]!.includes('{{')) return { kind: 'typed', expression: compileExpression(hole[1]!.trim()) };
    const template = compileTemplate(value);
    return template.dynamic ? { kind: 'text', template } : { kind: 'value', value };
  }
  if (Array.isArray(value)) return { kind: 'array', items: value.map(compilePart) };
  if (value && typeof value === 'object') return { kind: 'object', entries: Object.entries(value).map(([k, v]) => [k, compilePart(v)]) };
  return { kind: 'value', value };
}

async function renderPart(part: ArgumentPart, scope: TemplateScope): Promise<unknown> {
  switch (part.kind) {
    case 'value':
      return part.value;
    case 'text':
      return part.template.render(scope);
    case 'typed': {
      const read = part.expression.read(scope);
      return plain(read === NOT_READ ? await part.expression.evaluate(scope) : read);
    }
    case 'array':
      return Promise.all(part.items.map((item) => renderPart(item, scope)));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of part.entries) {
        const value = await renderPart(inner, scope);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
  }
}

/** JSONata's results as plain JSON (its sequences are arrays with extra marks; prototype-less objects from the sanitised payload) */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** the tool's spec, when the server is connected and lists it: the rendered arguments are checked against its schema at once */
export type ToolSpecLookup = (name: string) => ToolSpec | undefined;
