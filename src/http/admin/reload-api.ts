import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { jsonAnswer, operatorErrorSchema } from '../openapi/common-schemas.js';
import { gatewayTokenSecurity } from '../openapi/documented-route.js';

export const reloadResultSchema = z.object({
  ok: z.literal(true),
  changed: z.array(z.string()).describe('Config keys whose new value is in effect, e.g. hooks.mappings, agents.list.'),
  restartRequired: z.array(z.string()).describe('Changed keys that take effect only after a restart (port, host, storage, ...).'),
});

/** POST /admin/reload as declared for the document: it lives outside the admin app (it needs the gateway's reload, reload-route.ts) */
export const reloadApi = createRoute({
  method: 'post', path: '/reload', summary: 'Reload the config file (herald reload)', security: gatewayTokenSecurity,
  responses: {
    200: jsonAnswer(reloadResultSchema, 'Reloaded.'),
    401: jsonAnswer(operatorErrorSchema, 'Missing or wrong gateway token.'),
    422: jsonAnswer(operatorErrorSchema, 'The file has faults (in `details`); the running config stays.'),
    429: jsonAnswer(operatorErrorSchema, 'Too many failed authentications from this address.'),
  },
});
