import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { linearPreset } from './preset.js';

export const linearPlugin = definePlugin({
  id: 'linear',
  roles: ['preset'],
  summary: linearPreset.summary,
  config: z.object({}).strict(),
  preset: linearPreset,
  create: () => ({}),
});
