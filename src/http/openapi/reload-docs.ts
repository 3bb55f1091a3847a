import { z } from 'zod';
import { operatorErrorSchema } from './common-schemas.js';
import { defineRoutes } from './route-doc.js';

export const reloadResultSchema = z.object({
  ok: z.literal(true),
  changed: z.array(z.string()).describe('Config keys whose new value is in effect, e.g. hooks.mappings, agents.list.'),
  restartRequired: z.array(z.string()).describe('Changed keys that take effect only after a restart (port, host, storage, ...).'),
});

/** POST /admin/reload lives outside the admin app (it needs the gateway's reload), so it is declared here */
export const reloadDocs = defineRoutes('admin', [
  {
    method: 'post', path: '/reload', summary: 'Reload the config file (herald reload)', security: 'gatewayToken',
    responses: {
      200: { description: 'Reloaded.', schema: reloadResultSchema },
      401: { description: 'Missing or wrong gateway token.', schema: operatorErrorSchema },
      422: { description: 'The file has faults (in `details`); the running config stays.', schema: operatorErrorSchema },
      429: { description: 'Too many failed authentications from this address.', schema: operatorErrorSchema },
    },
  },
]);
