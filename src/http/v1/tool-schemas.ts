import { z } from 'zod';

/** OpenAI's rule for function and schema names: a-z, A-Z, 0-9, underscores and dashes, at most 64 */
export const functionName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes');

/** a JSON Schema, as an object; its content is the upstream model's to judge */
export const jsonSchemaObject = z.record(z.string(), z.unknown());
