import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { cloudflarePreset } from './preset.js';

export const cloudflarePlugin = definePlugin({
  id: 'cloudflare',
  roles: ['preset'],
  summary: cloudflarePreset.summary,
  config: z.object({}).strict(),
  preset: cloudflarePreset,
  create: () => ({}),
});
