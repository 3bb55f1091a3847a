import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { jsonAnswer, okFalseSchema, okSchema } from './openapi/common-schemas.js';
import { gatewayTokenSecurity } from './openapi/documented-route.js';

const readySchema = okSchema.extend({
  degraded: z
    .record(z.string(), z.record(z.string(), z.string()))
    .optional()
    .describe('By component: `tools` lists the MCP servers not ready, each with its state (connecting, failed).'),
});

/** The routes at the root (probes, metrics, OAuth's client side, this document), as declared for the document */
export const rootApi = {
  healthz: createRoute({
    method: 'get', path: '/healthz', summary: 'Liveness: the process answers',
    responses: { 200: jsonAnswer(okSchema, 'Up.') },
  }),
  readyz: createRoute({
    method: 'get', path: '/readyz', summary: 'Readiness: the store answers',
    responses: {
      200: jsonAnswer(readySchema, 'Ready; `degraded` names components that work less than fully (MCP servers not connected), which do not make herald unready.'),
      503: jsonAnswer(okFalseSchema, 'The store does not answer.'),
    },
  }),
  metrics: createRoute({
    method: 'get', path: '/metrics', summary: 'Prometheus metrics (when gateway.metrics.enabled)', security: gatewayTokenSecurity,
    responses: { 200: jsonAnswer(z.string(), 'Prometheus text exposition.', 'text/plain; version=0.0.4'), 401: jsonAnswer(okFalseSchema, 'Missing or wrong gateway token.') },
  }),
  clientMetadata: createRoute({
    method: 'get', path: '/oauth/client-metadata.json', summary: "herald's OAuth client metadata document (its client id at MCP servers' authorization servers, CIMD)",
    responses: { 200: jsonAnswer(z.record(z.string(), z.unknown()), 'The client metadata: client_id (this URL), client_name, redirect_uris (<gateway.publicUrl>/oauth/callback), grant types.') },
  }),
  oauthCallback: createRoute({
    method: 'get', path: '/oauth/callback', summary: "The browser's return from an MCP server's authorization server: stores the tokens and connects the server",
    responses: {
      200: jsonAnswer(z.string(), 'Signed in: a page saying so.', 'text/html'),
      400: jsonAnswer(okFalseSchema, 'state or code missing, or a state unknown, used or older than 10 minutes.'),
      502: jsonAnswer(okFalseSchema, 'The authorization server refused the sign-in or the code.'),
    },
  }),
  openapi: createRoute({
    method: 'get', path: '/openapi.json', summary: 'This document',
    responses: { 200: jsonAnswer(z.record(z.string(), z.unknown()), 'The OpenAPI 3.1 document of this gateway, its mapped hooks included.') },
  }),
};
