import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// one word, many tokens: a count above 1 is the tokenizer's
const JSON_TEXT = '{"path":"/srv/app/config/production.yaml","mode":"0644"}';

describe('the token-count thread (src/models/token-count-thread.ts)', () => {
  it('never keeps a process from exiting once it counted', () => {
    const estimate = pathToFileURL(fileURLToPath(new URL('../../src/models/token-estimate.ts', import.meta.url))).href;
    const script = `import { estimateTokens } from ${JSON.stringify(estimate)};
      console.log(await estimateTokens(${JSON.stringify(JSON_TEXT)}, 'gpt-4o'));`;
    // the child exits by itself (execFileSync throws at the timeout otherwise), having printed the count
    const printed = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(Number(printed.trim())).toBeGreaterThan(1);
  });
});
