import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { metaPreset } from './preset.js';

export const metaPlugin = definePlugin({
  id: 'meta',
  roles: ['preset'],
  summary: metaPreset.summary,
  config: z.object({}).strict(),
  preset: metaPreset,
  create: () => ({}),
});
