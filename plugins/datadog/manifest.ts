import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { datadogPreset } from './preset.js';

export const datadogPlugin = definePlugin({
  id: 'datadog',
  roles: ['preset'],
  summary: datadogPreset.summary,
  config: z.object({}).strict(),
  preset: datadogPreset,
  create: () => ({}),
});
