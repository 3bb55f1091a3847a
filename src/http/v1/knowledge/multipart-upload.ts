import type { Context } from 'hono';
import { HeraldError } from '../../../errors.js';
import { readBody } from '../../request/read-body.js';

/** room for the multipart envelope and the small text fields around the file */
const ENVELOPE_BYTES = 64 * 1024;

export interface UploadForm {
  file: { name: string; bytes: Uint8Array };
  fields: Map<string, string>;
}

const tooLarge = (max: number, headers?: Record<string, string>) =>
  new HeraldError('HERALD_PAYLOAD_TOO_LARGE', `The file is larger than the upload limit of ${max} bytes.`, { param: 'file', openaiCode: 'file_too_large', headers });

/**
 * Reads a multipart upload under the size limit while it streams (the declared length is
 * checked first, then every byte counted as it arrives, and reading stops past the limit),
 * and only then parses the buffered body. Exactly one `file` part is accepted.
 */
export async function readUploadForm(c: Context, maxFileBytes: number): Promise<UploadForm> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new HeraldError('HERALD_INVALID_FIELD', 'Send the upload as multipart/form-data with a `file` part.', { param: 'file' });
  }
  const bytes = await readBody(c, { maxBytes: maxFileBytes + ENVELOPE_BYTES, idleTimeoutMs: 30_000 }).catch((error) => {
    throw error instanceof HeraldError && error.code === 'HERALD_PAYLOAD_TOO_LARGE' ? tooLarge(maxFileBytes, error.headers) : error;
  });
  c.set('bodyBytes', bytes.byteLength);
  let form: FormData;
  try {
    form = await new Request('http://upload.invalid/', { method: 'POST', headers: { 'content-type': type }, body: bytes }).formData();
  } catch {
    throw new HeraldError('HERALD_INVALID_FIELD', 'The multipart body could not be parsed.', { param: 'file' });
  }
  const files = form.getAll('file');
  const file = files[0];
  if (!file || typeof file === 'string') throw new HeraldError('HERALD_INVALID_FIELD', 'A `file` part (a file, not a text field) is required.', { param: 'file' });
  if (files.length > 1) throw new HeraldError('HERALD_INVALID_FIELD', 'Send one file per upload.', { param: 'file' });
  if (file.size > maxFileBytes) throw tooLarge(maxFileBytes);
  const fields = new Map<string, string>();
  for (const [name, value] of form.entries()) if (typeof value === 'string') fields.set(name, value);
  return { file: { name: file.name || 'upload', bytes: new Uint8Array(await file.arrayBuffer()) }, fields };
}
