import fs from 'node:fs';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  fs.appendFileSync(process.env.HERALD_TRACE_LOADS, `${resolved.url}\n`);
  return resolved;
}
