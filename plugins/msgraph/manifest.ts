import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { msgraphPreset } from './preset.js';

export const msgraphPlugin = definePlugin({
  id: 'msgraph',
  roles: ['preset'],
  summary: msgraphPreset.summary,
  config: z.object({}).strict(),
  preset: msgraphPreset,
  create: () => ({}),
});
