import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { vercelPreset } from './preset.js';

export const vercelPlugin = definePlugin({
  id: 'vercel',
  roles: ['preset'],
  summary: vercelPreset.summary,
  config: z.object({}).strict(),
  preset: vercelPreset,
  create: () => ({}),
});
