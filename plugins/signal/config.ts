import { z } from 'zod';

export const signalConfigSchema = z
  .object({
    url: z.string().url().describe('Base URL of a signal-cli REST API server (bbernhard/signal-cli-rest-api), e.g. `http://127.0.0.1:8080`.'),
    number: z.string().min(1).describe('The registered Signal number herald sends from, in international format (`+4915112345678`).'),
  })
  .strict();

export type SignalConfig = z.output<typeof signalConfigSchema>;
