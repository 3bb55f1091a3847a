import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { calendlyPreset } from './preset.js';

export const calendlyPlugin = definePlugin({
  id: 'calendly',
  roles: ['preset'],
  summary: calendlyPreset.summary,
  config: z.object({}).strict(),
  preset: calendlyPreset,
  create: () => ({}),
});
