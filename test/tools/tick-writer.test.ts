import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { TickWriter } from '../../src/tools/mcp/tick-writer.js';

it('sends the messages asked for in one tick as one write, in order; a stream gone by then fails them', async () => {
  const stream = new PassThrough();
  const writes: string[] = [];
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string) => {
    writes.push(chunk);
    return write(chunk);
  }) as typeof stream.write;
  const writer = new TickWriter(() => stream);
  await Promise.all(['a\n', 'b\n', 'c\n'].map((line) => writer.write(line)));
  await writer.write('d\n');
  expect(writes).toEqual(['a\nb\nc\n', 'd\n']);

  const late = writer.write('e\n');
  stream.end();
  await expect(late).rejects.toThrow('Not connected');
  expect(writes).toHaveLength(2);
});
