import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { sendgridPreset } from './preset.js';

export const sendgridPlugin = definePlugin({
  id: 'sendgrid',
  roles: ['preset'],
  summary: sendgridPreset.summary,
  config: z.object({}).strict(),
  preset: sendgridPreset,
  create: () => ({}),
});
