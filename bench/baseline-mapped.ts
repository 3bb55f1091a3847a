/**
 * The baseline's mapped hooks (bench/baseline-server.ts): what a hand-written server does for
 * one declarative mapping, with the same libraries herald uses: ajv (+ ajv-formats) compiled
 * once at start, JSONata templates compiled once, evaluated per request over the payload with
 * the same `$payload`/`$headers`/`$query`/`$path`/`$now` bindings. Self-contained: no herald imports.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import jsonata from 'jsonata';
import { AGENT_MESSAGE_TEMPLATE, AGENT_NAME_TEMPLATE, MAPPED_SCHEMA, WAKE_TEXT_TEMPLATE } from './mapped-hook.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

export interface MappedRequest {
  payload: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  path: string;
}

export type Rendered = (request: MappedRequest) => Promise<string>;

/** `text {{ expr }} text`: the holes compiled once, rendered as herald renders them */
export function compileTemplate(template: string): Rendered {
  const pieces: (string | jsonata.Expression)[] = [];
  let rest = template;
  for (let open = rest.indexOf('{{'); open >= 0; open = rest.indexOf('{{')) {
    const close = rest.indexOf('}}', open);
    pieces.push(rest.slice(0, open), jsonata(rest.slice(open + 2, close).trim()));
    rest = rest.slice(close + 2);
  }
  pieces.push(rest);
  return async (request) => {
    const { authorization: _, ...headers } = request.headers;
    const bindings = { payload: request.payload, headers, query: {}, path: request.path, now: new Date().toISOString() };
    let out = '';
    for (const piece of pieces) {
      if (typeof piece === 'string') out += piece;
      else {
        const value: unknown = await piece.evaluate(request.payload, bindings);
        out += value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
      }
    }
    return out;
  };
}

export class SchemaFault extends Error {}

export function mappedHooks() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(MAPPED_SCHEMA);
  const check = (payload: unknown) => {
    if (!validate(payload)) throw new SchemaFault((validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; '));
  };
  const wakeText = compileTemplate(WAKE_TEXT_TEMPLATE);
  const agentMessage = compileTemplate(AGENT_MESSAGE_TEMPLATE);
  const agentName = compileTemplate(AGENT_NAME_TEMPLATE);
  return {
    async wake(request: MappedRequest): Promise<string> {
      check(request.payload);
      return wakeText(request);
    },
    async agent(request: MappedRequest): Promise<{ message: string; name: string }> {
      check(request.payload);
      return { message: await agentMessage(request), name: await agentName(request) };
    },
  };
}
