import { z } from 'zod';
import { okFalseSchema, okSchema } from './common-schemas.js';
import { defineRoutes } from './route-doc.js';

const readySchema = okSchema.extend({
  degraded: z
    .record(z.string(), z.record(z.string(), z.string()))
    .optional()
    .describe('By component: `tools` lists the MCP servers not ready, each with its state (connecting, failed).'),
});

export const rootDocs = defineRoutes('root', [
  {
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: the process answers',
    security: 'none',
    responses: { 200: { description: 'Up.', schema: okSchema } },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: the store answers',
    security: 'none',
    responses: { 200: { description: 'Ready; `degraded` names components that work less than fully (MCP servers not connected), which do not make herald unready.', schema: readySchema }, 503: { description: 'The store does not answer.', schema: okFalseSchema } },
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (when gateway.metrics.enabled)',
    security: 'gatewayToken',
    responses: {
      200: { description: 'Prometheus text exposition.', schema: z.string(), contentType: 'text/plain; version=0.0.4' },
      401: { description: 'Missing or wrong gateway token.', schema: okFalseSchema },
    },
  },
  {
    method: 'get',
    path: '/oauth/client-metadata.json',
    summary: "herald's OAuth client metadata document (its client id at MCP servers' authorization servers, CIMD)",
    security: 'none',
    responses: { 200: { description: 'The client metadata: client_id (this URL), client_name, redirect_uris (<gateway.publicUrl>/oauth/callback), grant types.', schema: z.record(z.string(), z.unknown()) } },
  },
  {
    method: 'get',
    path: '/oauth/callback',
    summary: "The browser's return from an MCP server's authorization server: stores the tokens and connects the server",
    security: 'none',
    responses: {
      200: { description: 'Signed in: a page saying so.', schema: z.string(), contentType: 'text/html' },
      400: { description: 'state or code missing, or a state unknown, used or older than 10 minutes.', schema: okFalseSchema },
      502: { description: 'The authorization server refused the sign-in or the code.', schema: okFalseSchema },
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    security: 'none',
    responses: { 200: { description: 'The OpenAPI 3.1 document of this gateway, its mapped hooks included.', schema: z.record(z.string(), z.unknown()) } },
  },
]);
