import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { estimateTokens } from '../../src/models/token-estimate.js';
import { TokenCountThread } from '../../src/models/token-count-thread.js';
import { tempDir } from '../helpers/start-herald.js';

// the tokenizer as this thread would load it: counting here would give this count
vi.mock('gpt-tokenizer/encoding/o200k_base', () => ({ countTokens: () => 999_999 }));

const ENTRY = pathToFileURL(fileURLToPath(new URL('../../src/models/token-count-worker-entry.mjs', import.meta.url)));
// one word, many tokens: the count is the tokenizer's, not the words' floor
const JSON_TEXT = '{"path":"/srv/app/config/production.yaml","mode":"0644"}';

describe('token counts in a thread of their own', () => {
  it('are counted off the event loop: the tokenizer this thread would load is never the one counting', async () => {
    const real = await vi.importActual<typeof import('gpt-tokenizer/encoding/o200k_base')>('gpt-tokenizer/encoding/o200k_base');
    expect(real.countTokens(JSON_TEXT)).toBeGreaterThan(1);
    expect(await estimateTokens(JSON_TEXT, 'gpt-4o')).toBe(real.countTokens(JSON_TEXT));
  });

  it('end after the idle time and start again at the next count', async () => {
    const thread = new TokenCountThread(ENTRY, 50);
    expect(thread.running).toBe(false);
    const first = await thread.count('cl100k_base', ['a b c', '', '{"mode":"0644"}']);
    expect(first[1]).toBe(0);
    expect(thread.running).toBe(true);
    await vi.waitFor(() => expect(thread.running).toBe(false), { timeout: 5_000 });
    expect(await thread.count('cl100k_base', ['a b c', '', '{"mode":"0644"}'])).toEqual(first);
  });

  it('that died fail the counts they owed, and the next count starts another thread', async () => {
    const dying = path.join(tempDir(), 'dying.mjs');
    fs.writeFileSync(dying, 'process.exit(3);\n');
    const thread = new TokenCountThread(pathToFileURL(dying));
    await expect(thread.count('o200k_base', ['hello'])).rejects.toThrow('the token-count thread exited (code 3)');
    expect(thread.running).toBe(false);
    await expect(thread.count('o200k_base', ['hello'])).rejects.toThrow('code 3');
  });
});
