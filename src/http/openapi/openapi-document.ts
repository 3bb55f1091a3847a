import { z } from 'zod';
import { hooksPrefix } from '../../config/hooks-path.js';
import { okFalseSchema } from './common-schemas.js';
import { hookErrorAnswers, runAcceptedSchema, wakeAcceptedSchema } from '../hooks/hooks-api.js';
import { responseDocsOf } from './registry-docs.js';
import type { ResponseDoc, RouteDoc, RouteSecurity, Surface } from './route-doc.js';

/** A mapped hook as the document shows it: its path, what it turns into, its payload schema. */
export interface MappedHookDoc {
  id: string;
  path: string;
  action: 'wake' | 'agent' | 'tool';
  /** the mapping's JSON Schema (JSON Schema 2020-12 is OpenAPI 3.1's schema language); none: any JSON */
  schema?: Record<string, unknown>;
  /** the mapping's own answer (`respond`): a handshake, or its run's reply awaited up to waitMs */
  respond?: { method: 'POST' | 'GET'; handshake: boolean; status: number; contentType: string; waitMs?: number; fallback?: { status: number; contentType: string } };
}

export interface OpenApiOptions {
  routes: RouteDoc[];
  /** `hooks.path` when the webhook surface is enabled; its routes are left out otherwise */
  hooksPath?: string;
  mappedHooks?: MappedHookDoc[];
  /** only routes under this prefix (e.g. "/admin" for an admin-only document) */
  prefix?: string;
  /** routes of surfaces that are off (e.g. /metrics with gateway.metrics.enabled false) */
  exclude?: (route: RouteDoc) => boolean;
  version?: string;
}

type Json = Record<string, unknown>;

const securitySchemes = {
  hookToken: { type: 'http', scheme: 'bearer', description: 'hooks.token (also accepted as `x-gateway-token`, or the deprecated `?token=`).' },
  apiKey: { type: 'http', scheme: 'bearer', description: 'A platform API key (platform.apiKeys or `herald keys create`).' },
  gatewayToken: { type: 'http', scheme: 'bearer', description: 'gateway.auth.token.' },
} as const;

/** a zod schema as JSON Schema 2020-12: request bodies as accepted (input), answers as sent (output) */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  return rest;
}

function prefixOf(surface: Surface, hooksPath: string | undefined): string | undefined {
  if (surface === 'root') return '';
  if (surface === 'platform') return '/v1';
  if (surface === 'admin') return '/admin';
  return hooksPath === undefined ? undefined : hooksPrefix(hooksPath);
}

function responses(docs: Record<number, ResponseDoc>): Json {
  return Object.fromEntries(
    Object.entries(docs).map(([status, doc]) => [
      status,
      doc.schema ? { description: doc.description, content: { [doc.contentType ?? 'application/json']: { schema: jsonSchema(doc.schema, 'output') } } } : { description: doc.description },
    ]),
  );
}

function parameters(route: RouteDoc): Json[] {
  const list: Json[] = [];
  for (const [where, schema] of [['path', route.request?.params], ['query', route.request?.query]] as const) {
    if (!schema) continue;
    const object = jsonSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...rest } = property;
      list.push({ name, in: where, required: where === 'path' || (object.required ?? []).includes(name), ...(description !== undefined && { description }), schema: rest });
    }
  }
  return list;
}

function security(kind: RouteSecurity): Json[] {
  return kind === 'none' ? [] : [{ [kind]: [] }];
}

function operation(route: RouteDoc, tag: string): Json {
  const body = route.request?.body;
  return {
    operationId: `${route.method}${route.surface === 'root' ? '' : `-${route.surface}`}${route.path}`.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_'),
    summary: route.summary,
    ...(route.description && { description: route.description }),
    tags: [tag],
    security: security(route.security),
    ...(parameters(route).length && { parameters: parameters(route) }),
    ...(body && {
      requestBody: {
        required: true,
        ...(body.description && { description: body.description }),
        content: { [body.contentType ?? 'application/json']: { schema: jsonSchema(body.schema, 'input') } },
      },
    }),
    responses: responses(route.responses),
  };
}

const tags: Record<Surface, string> = { root: 'health', hooks: 'hooks', platform: 'platform', admin: 'admin' };

/** what a mapping answers itself (`respond`), beside or instead of the generic answer */
function respondResponses(hook: MappedHookDoc): Record<number, ResponseDoc> {
  const { respond } = hook;
  if (!respond) return {};
  const own = { schema: z.string(), contentType: respond.contentType };
  if (respond.handshake) return { [respond.status]: { description: 'A handshake the mapping answers itself (respond.when holds): no run.', ...own } };
  const fallback: Record<number, ResponseDoc> = respond.fallback
    ? { [respond.fallback.status]: { description: `Past ${respond.waitMs} ms without the reply: the fallback (the reply is then delivered through the channel).`, schema: z.string(), contentType: respond.fallback.contentType } }
    : {};
  // the reply's answer wins a status shared with the fallback: both are text of the mapping's own
  return { ...fallback, [respond.status]: { description: `The run's reply, rendered into respond.body, when it comes within ${respond.waitMs} ms.`, ...own } };
}

function mappedHookOperation(hook: MappedHookDoc): Json {
  const accepted: Record<number, ResponseDoc> =
    hook.action === 'wake' ? { 200: { description: 'Event queued.', schema: wakeAcceptedSchema } } : { 202: { description: hook.action === 'tool' ? 'Tool call accepted (a run of kind tool).' : 'Run accepted.', schema: runAcceptedSchema } };
  return {
    operationId: `post-hooks-${hook.path}`.replace(/[^A-Za-z0-9]+/g, '_'),
    summary: `Mapped hook "${hook.id}" (${hook.action})`,
    tags: ['hooks'],
    security: security('hookToken'),
    requestBody: { required: true, content: { 'application/json': { schema: hook.schema ?? {} } } },
    responses: responses({
      ...accepted,
      ...respondResponses(hook),
      204: { description: 'The transform skipped the request.' },
      ...responseDocsOf(hookErrorAnswers),
      500: { description: 'The mapping failed (hook mapping failed).' },
    }),
  };
}

/** a GET handshake (Meta's hub.challenge): its query, answered by the mapping itself */
function getHandshakeOperation(hook: MappedHookDoc): Json {
  return {
    operationId: `get-hooks-${hook.path}`.replace(/[^A-Za-z0-9]+/g, '_'),
    summary: `Handshake of mapped hook "${hook.id}"`,
    tags: ['hooks'],
    description: 'Admitted by the hook token or by the verify token of the query (respond.verifyToken); answers only a handshake, starts no run.',
    responses: responses({ ...respondResponses(hook), 400: { description: 'Not a handshake this path answers.', schema: okFalseSchema }, 401: { description: 'Wrong or missing verify token.', schema: okFalseSchema } }),
  };
}

/** The OpenAPI 3.1 document of the routes given, under the prefixes this config serves them at. */
export function openApiDocument(options: OpenApiOptions): Json {
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, op: Json) => {
    if (options.prefix && path !== options.prefix && !path.startsWith(`${options.prefix}/`)) return;
    paths[path] = { ...paths[path], [method]: op };
  };
  for (const route of options.routes) {
    if (options.exclude?.(route)) continue;
    const prefix = prefixOf(route.surface, options.hooksPath);
    if (prefix === undefined) continue;
    add(`${prefix}${route.path}`, route.method, operation(route, tags[route.surface]));
  }
  const mappedPrefix = prefixOf('hooks', options.hooksPath);
  if (mappedPrefix !== undefined) {
    for (const hook of options.mappedHooks ?? []) {
      const path = `${mappedPrefix}/${hook.path}`;
      // the first mapping of a path wins a request only when it matches; the first one with a schema documents it
      if (hook.respond?.method === 'GET') {
        if (!paths[path]?.get) add(path, 'get', getHandshakeOperation(hook));
      } else if (!paths[path]?.post) add(path, 'post', mappedHookOperation(hook));
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'herald',
      version: options.version ?? '0.0.0',
      description: 'A gateway for digital employees: the webhook surface, the OpenAI-compatible platform API and the admin API.',
    },
    components: { securitySchemes },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
  };
}
