import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { tempDir } from '../helpers/start-herald.js';

export interface ClientMetadataHost {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** the certificate (PEM file) a process must trust to fetch from it: NODE_EXTRA_CA_CERTS */
  caFile: string;
  /** serves `document` at `path` (JSON) */
  put(path: string, document: unknown): string;
  /** the paths requested, in order */
  readonly requested: string[];
  close(): Promise<void>;
}

/**
 * A client's web site serving its Client ID Metadata Document (draft-ietf-oauth-client-id-
 * metadata-document §3-4: an https URL that is the client's id, answering the client's metadata
 * as JSON), on 127.0.0.1 with a self-signed certificate made here by openssl for that address.
 */
export async function startClientMetadataHost(): Promise<ClientMetadataHost> {
  const dir = tempDir('herald-cimd-');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const documents = new Map<string, string>();
  const requested: string[] = [];
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
    requested.push(req.url ?? '');
    const body = documents.get(req.url ?? '');
    if (body === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    caFile: cert,
    requested,
    put(at, document) {
      documents.set(at, JSON.stringify(document));
      return `${origin}${at}`;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
