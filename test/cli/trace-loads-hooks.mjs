import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// herald's bundle (dist/) loads chunks, not modules: dist/meta.json (esbuild's metafile, written
// by the build) names the source modules each chunk holds, and those are traced too
let bundle;
function bundledSources(file) {
  const dist = file.slice(0, file.lastIndexOf('/dist/') + '/dist'.length);
  const root = path.dirname(dist);
  bundle ??= JSON.parse(fs.readFileSync(path.join(dist, 'meta.json'), 'utf8')).outputs;
  const inputs = bundle[path.relative(root, file)]?.inputs ?? {};
  return Object.keys(inputs).map((input) => `${path.join(root, input)}\n`).join('');
}

// a package's own dist/ (tsx's, when herald runs from its sources) is not herald's bundle
const isHeraldBundle = (file) => file.includes('/dist/') && !file.includes('/node_modules/');

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  let line = `${resolved.url}\n`;
  if (resolved.url.startsWith('file:') && isHeraldBundle(fileURLToPath(resolved.url))) line += bundledSources(fileURLToPath(resolved.url));
  fs.appendFileSync(process.env.HERALD_TRACE_LOADS, line);
  return resolved;
}
