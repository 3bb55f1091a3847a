import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { zoomPreset } from './preset.js';

export const zoomPlugin = definePlugin({
  id: 'zoom',
  roles: ['preset'],
  summary: zoomPreset.summary,
  config: z.object({}).strict(),
  preset: zoomPreset,
  create: () => ({}),
});
