import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { shopifyPreset } from './preset.js';

export const shopifyPlugin = definePlugin({
  id: 'shopify',
  roles: ['preset'],
  summary: shopifyPreset.summary,
  config: z.object({}).strict(),
  preset: shopifyPreset,
  create: () => ({}),
});
