import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { sentryPreset } from './preset.js';

export const sentryPlugin = definePlugin({
  id: 'sentry',
  roles: ['preset'],
  summary: sentryPreset.summary,
  config: z.object({}).strict(),
  preset: sentryPreset,
  create: () => ({}),
});
