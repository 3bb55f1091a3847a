import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { alertmanagerPreset } from './preset.js';

export const alertmanagerPlugin = definePlugin({
  id: 'alertmanager',
  roles: ['preset'],
  summary: alertmanagerPreset.summary,
  config: z.object({}).strict(),
  preset: alertmanagerPreset,
  create: () => ({}),
});
