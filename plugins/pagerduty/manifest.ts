import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { pagerdutyPreset } from './preset.js';

export const pagerdutyPlugin = definePlugin({
  id: 'pagerduty',
  roles: ['preset'],
  summary: pagerdutyPreset.summary,
  config: z.object({}).strict(),
  preset: pagerdutyPreset,
  create: () => ({}),
});
