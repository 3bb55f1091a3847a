import { createHmac } from 'node:crypto';
import type { MappingRespond } from '../config/sections/mapping-schema.js';
import { safeEqual } from '../utils/constant-time.js';
import { compileExpression, describeJsonataError, type CompiledExpression } from './templates/jsonata-expression.js';
import { compileTemplate, TemplateSyntaxError, type CompiledTemplate } from './templates/template.js';
import type { TemplateScope } from './templates/template-scope.js';

/** An answer a mapping gives itself, instead of the generic 200/202. */
export interface HookResponse {
  status: number;
  body: string;
  contentType: string;
  headers?: Record<string, string>;
}

/** A mapping's compiled `respond`. */
export interface CompiledRespond {
  method: 'POST' | 'GET';
  /** a handshake: answered when `when` holds, with no run */
  handshake: boolean;
  /** the run's reply is awaited this long */
  waitMs?: number;
  /** does this request get the handshake answer? */
  holds(scope: TemplateScope): Promise<boolean>;
  /** the query token of a GET handshake matches (constant time); true when none is declared */
  verifyToken?(query: Record<string, string>): boolean;
  /** the answer, the run's reply bound as `reply` (waitMs) */
  render(scope: TemplateScope, reply?: string): Promise<HookResponse>;
  /** the answer past waitMs; undefined: the generic 202 */
  fallback?(scope: TemplateScope): Promise<HookResponse>;
  /** what a dry run shows of a waiting respond */
  declared: Record<string, unknown>;
}

/** Escapes a rendered hole for the answer's content type: XML (TwiML) and JSON strings; other types as they are. */
export function escaperFor(contentType: string): (text: string) => string {
  const type = contentType.toLowerCase();
  if (/[/+]xml\b|html/.test(type)) return (text) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  if (/[/+]json\b/.test(type)) return (text) => JSON.stringify(text).slice(1, -1);
  return (text) => text;
}

const hmacSha256 = (key: unknown, text: unknown) => createHmac('sha256', String(key ?? '')).update(String(text ?? '')).digest('hex');

/** Compiles `respond`; faults (syntax, a field without sense) are pushed naming `respond.<field>`. */
export function compileRespond(respond: MappingRespond, hasPath: boolean, faults: string[]): CompiledRespond {
  const template = (field: string, source: string): CompiledTemplate | undefined => {
    try {
      return compileTemplate(source);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      faults.push(`${field}: template error in ${JSON.stringify(source)}: ${error.message}`);
      return undefined;
    }
  };
  let when: CompiledExpression | undefined;
  if (respond.when !== undefined) {
    try {
      when = compileExpression(respond.when);
    } catch (error) {
      faults.push(`respond.when: syntax error in ${JSON.stringify(respond.when)}: ${describeJsonataError(error)}`);
    }
  }
  const handshake = respond.when !== undefined || respond.method === 'GET';
  if (handshake && respond.waitMs !== undefined) faults.push('respond.waitMs: a handshake (when, or method GET) answers at once and starts no run; put waitMs on the mapping that runs');
  if (respond.fallback && respond.waitMs === undefined) faults.push('respond.fallback: only with waitMs (the answer past it)');
  if (respond.method === 'GET' && !hasPath) faults.push('respond.method: GET needs match.path');
  if (respond.verifyToken && respond.method !== 'GET') faults.push('respond.verifyToken: only for method GET (a POST proves itself with the hook token or auth)');
  const body = template('respond.body', respond.body);
  const fallbackBody = respond.fallback ? template('respond.fallback.body', respond.fallback.body) : undefined;
  const escape = escaperFor(respond.contentType);
  const extra = { hmacSha256, ...(respond.secret !== undefined && { secret: respond.secret }) };
  const answer = (status: number, contentType: string, text: string): HookResponse => ({ status, body: text, contentType, ...(respond.headers && { headers: respond.headers }) });

  return {
    method: respond.method,
    handshake,
    ...(respond.waitMs !== undefined && { waitMs: respond.waitMs }),
    async holds(scope) {
      if (!when) return respond.method === 'GET';
      return Boolean(await when.evaluate({ payload: scope.payload, bindings: { ...scope.bindings, ...extra } as never }));
    },
    ...(respond.verifyToken && {
      verifyToken: (query: Record<string, string>) => safeEqual(query[respond.verifyToken!.query] ?? '', respond.verifyToken!.token),
    }),
    async render(scope, reply) {
      const payload = reply === undefined ? scope.payload : Object.assign(Object.create(null), isObject(scope.payload) ? scope.payload : {}, { reply });
      const bindings = { ...scope.bindings, ...extra, ...(reply !== undefined && { reply }) };
      return answer(respond.status, respond.contentType, body ? await body.render({ payload, bindings } as never, escape) : '');
    },
    ...(respond.fallback && {
      async fallback(scope: TemplateScope) {
        const contentType = respond.fallback!.contentType ?? respond.contentType;
        return answer(respond.fallback!.status, contentType, fallbackBody ? await fallbackBody.render(scope, escaperFor(contentType)) : '');
      },
    }),
    declared: {
      ...(respond.waitMs !== undefined && { waitMs: respond.waitMs }),
      status: respond.status,
      contentType: respond.contentType,
      ...(respond.fallback && { fallback: { ...respond.fallback, contentType: respond.fallback.contentType ?? respond.contentType } }),
    },
  };
}

const isObject = (value: unknown): value is object => value !== null && typeof value === 'object' && !Array.isArray(value);
