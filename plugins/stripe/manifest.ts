import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { stripePreset } from './preset.js';

export const stripePlugin = definePlugin({
  id: 'stripe',
  roles: ['preset'],
  summary: stripePreset.summary,
  config: z.object({}).strict(),
  preset: stripePreset,
  create: () => ({}),
});
