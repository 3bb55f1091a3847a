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
    path: '/openapi.json',
    summary: 'This document',
    security: 'none',
    responses: { 200: { description: 'The OpenAPI 3.1 document of this gateway, its mapped hooks included.', schema: z.record(z.string(), z.unknown()) } },
  },
]);
