import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { typeformPreset } from './preset.js';

export const typeformPlugin = definePlugin({
  id: 'typeform',
  roles: ['preset'],
  summary: typeformPreset.summary,
  config: z.object({}).strict(),
  preset: typeformPreset,
  create: () => ({}),
});
