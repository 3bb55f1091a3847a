import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { paypalPreset } from './preset.js';

export const paypalPlugin = definePlugin({
  id: 'paypal',
  roles: ['preset'],
  summary: paypalPreset.summary,
  config: z.object({}).strict(),
  preset: paypalPreset,
  create: () => ({}),
});
