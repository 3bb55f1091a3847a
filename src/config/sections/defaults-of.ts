import type { z } from 'zod';

/**
 * How a config's schemas parse: without zod's JIT, which compiles a parser per object schema (with
 * `new Function`) on its first parse and pays that back only over many parses. A config is parsed
 * once per start or reload; compiling its ~100 object schemas was a measurable part of a start.
 */
export const CONFIG_PARSE = { jitless: true } as const;

/** A section's defaults: what its schema makes of `{}` */
export function defaultsOf<T extends z.ZodType>(schema: T): z.output<T> {
  return schema.parse({}, CONFIG_PARSE);
}
