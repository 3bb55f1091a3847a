import { z } from 'zod';
import { okFalseSchema, okSchema } from './common-schemas.js';
import { defineRoutes } from './route-doc.js';

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
    responses: { 200: { description: 'Ready.', schema: okSchema }, 503: { description: 'The store does not answer.', schema: okFalseSchema } },
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
