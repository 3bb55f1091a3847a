import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { baseConfig, tempDir } from '../helpers/start-herald.js';

/**
 * The real `herald` binary (bin/herald.mjs, through tsx, not vitest's loader) in a user's
 * project folder with no package.json: there `.ts` and `.js` files are CommonJS to Node.
 */
const bin = fileURLToPath(new URL('../../bin/herald.mjs', import.meta.url));
const execFileAsync = promisify(execFile);

async function herald(dir: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args, '--config', path.join(dir, 'herald.json')], { cwd: dir });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function project(files: Record<string, string>) {
  const dir = tempDir('herald-project-');
  fs.writeFileSync(path.join(dir, 'herald.json'), JSON.stringify(baseConfig()));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

// each case starts node and tsx from cold: more room than the default when the whole suite runs
describe('the herald binary in a project without "type": "module"', { timeout: 60_000 }, () => {
  it('runs a TypeScript transform and a CommonJS .js transform with no build step', async () => {
    const dir = project({
      'mappings/orders.yaml': `
- id: typed
  match: { path: typed }
  transform: { module: order.ts }
- id: common
  match: { path: common }
  transform: { module: order.js, export: transform }
`,
      'transforms/order.ts': `
interface Order { id: string; items: { price: number }[] }
export default function order(ctx: { payload: Order }): { message: string; sessionKey: string } {
  const total: number = ctx.payload.items.reduce((sum, item) => sum + item.price, 0);
  return { message: \`Order \${ctx.payload.id}: \${total}\`, sessionKey: \`hook:order:\${ctx.payload.id}\` };
}
`,
      'transforms/order.js': 'exports.transform = (ctx) => ({ message: "common " + ctx.payload.id });',
      'order.json': JSON.stringify({ id: 'o-9', items: [{ price: 2 }, { price: 3 }] }),
    });
    const typed = await herald(dir, 'hooks', 'test', 'typed', '--payload', path.join(dir, 'order.json'));
    expect(typed.stderr).toContain('mapping: typed');
    expect(typed.code).toBe(0);
    expect(JSON.parse(typed.stdout)).toMatchObject({ kind: 'agent', message: 'Order o-9: 5', sessionKey: 'hook:order:o-9' });
    const common = await herald(dir, 'hooks', 'test', 'common', '--payload', path.join(dir, 'order.json'));
    expect(JSON.parse(common.stdout)).toMatchObject({ kind: 'agent', message: 'common o-9' });
  });

  it('refuses to serve, naming the mapping and the template, when a template has a syntax error', async () => {
    const dir = project({ 'mappings/bad.yaml': 'id: bad-template\nmatch: { path: bad }\nmessageTemplate: "Order {{ id + }}"\n' });
    const serve = await herald(dir, 'serve', '--port', '0');
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toMatch(/mapping "bad-template" \(.*bad\.yaml\[0\]\): messageTemplate: template error in "Order \{\{ id \+ \}\}"/);
  });
});
