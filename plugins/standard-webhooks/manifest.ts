import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { standardWebhooksPreset } from './preset.js';

export const standardWebhooksPlugin = definePlugin({
  id: 'standard-webhooks',
  roles: ['preset'],
  summary: standardWebhooksPreset.summary,
  config: z.object({}).strict(),
  preset: standardWebhooksPreset,
  create: () => ({}),
});
