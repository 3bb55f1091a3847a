import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { countStartTags, surveyZip } from '../../src/knowledge/parsing/zip-entries.js';

async function zipOf(files: Record<string, string>, compression: 'DEFLATE' | 'STORE'): Promise<Uint8Array> {
  const zip = new JSZip();
  for (const [name, text] of Object.entries(files)) zip.file(name, text);
  return zip.generateAsync({ type: 'uint8array', compression });
}

describe('surveyZip', () => {
  const paragraph = '<w:p><w:r><w:t>a &lt; b</w:t></w:r></w:p>';
  // 3 elements per paragraph (end tags, the declaration and comments are none), across many inflated chunks
  const document = `<?xml version="1.0"?><!-- note --><w:document><w:body>${paragraph.repeat(100_000)}</w:body></w:document>`;
  const files = { 'word/document.xml': document, '_rels/.rels': '<Relationships><Relationship Id="r"/></Relationships>', 'media/image.bin': '<<<<' };

  it('counts the start tags of the XML parts, deflated or stored, and nothing of other entries', async () => {
    for (const compression of ['DEFLATE', 'STORE'] as const) {
      expect(await surveyZip(await zipOf(files, compression), 16 * 2 ** 20)).toEqual({ xmlElements: 2 + 300_000 + 2 });
    }
  });

  it('refuses an entry inflating past the limit, naming it', async () => {
    await expect(surveyZip(await zipOf(files, 'DEFLATE'), 1_000_000)).rejects.toThrow('platform.knowledge.maxInflatedEntryBytes (1000000 bytes)');
  });

  it('counts HTML start tags, not a < in text', () => {
    expect(countStartTags(new TextEncoder().encode('<!doctype html><html><body><p>1 < 2 and 3 <4</p><br><_x/></body></html>'))).toBe(5);
  });
});
