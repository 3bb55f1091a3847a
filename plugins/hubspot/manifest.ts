import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { hubspotPreset } from './preset.js';

export const hubspotPlugin = definePlugin({
  id: 'hubspot',
  roles: ['preset'],
  summary: hubspotPreset.summary,
  config: z.object({}).strict(),
  preset: hubspotPreset,
  create: () => ({}),
});
