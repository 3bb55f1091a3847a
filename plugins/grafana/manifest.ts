import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { grafanaPreset } from './preset.js';

export const grafanaPlugin = definePlugin({
  id: 'grafana',
  roles: ['preset'],
  summary: grafanaPreset.summary,
  config: z.object({}).strict(),
  preset: grafanaPreset,
  create: () => ({}),
});
