import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { twilioPreset } from './preset.js';

export const twilioPlugin = definePlugin({
  id: 'twilio',
  roles: ['preset'],
  summary: twilioPreset.summary,
  config: z.object({}).strict(),
  preset: twilioPreset,
  create: () => ({}),
});
