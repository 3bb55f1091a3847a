import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** a certificate made for a test and the key that signs with it */
export interface IssuedCert {
  pem: string;
  key: KeyObject;
}

/**
 * A stand-in for the PKI behind PayPal's webhook signing certificate, made by openssl for one
 * run: a root CA (what `certRoots` trusts in the tests, as Node's root store trusts DigiCert's),
 * an intermediate CA it signs, and leaf certificates the intermediate signs. PayPal's is issued
 * to `CN=messageverificationcerts.paypal.com, O=PayPal, Inc.` by a DigiCert intermediate; the
 * subject rule is PayPal-Java-SDK's (SSLUtil.validateCertificateChain).
 */
export interface FakePaypalPki {
  root: IssuedCert;
  intermediate: IssuedCert;
  /** issues a leaf under the intermediate (`subject` as openssl's -subj); `caIssuers`: the URL its Authority Information Access names for the intermediate */
  leaf(subject: string, caIssuers?: string): IssuedCert;
  /** the intermediate as DER, as a CA Issuers URL serves it (RFC 5280 4.2.2.1: a DER certificate) */
  intermediateDer: Buffer;
  /** a self-signed certificate (no chain) */
  selfSigned(subject: string): IssuedCert;
  remove(): void;
}

export function fakePaypalPki(): FakePaypalPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-paypal-pki-'));
  const at = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore', cwd: dir });
  const read = (name: string): IssuedCert => ({ pem: fs.readFileSync(at(`${name}.pem`), 'utf8'), key: createPrivateKey(fs.readFileSync(at(`${name}.key`))) });
  fs.writeFileSync(at('ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
  fs.writeFileSync(at('leaf.ext'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n');
  let serial = 1;
  const issue = (name: string, subject: string, issuer: string, ext: string, caIssuers?: string) => {
    if (caIssuers) {
      fs.writeFileSync(at(`${name}.ext`), `${fs.readFileSync(at(ext), 'utf8')}authorityInfoAccess=caIssuers;URI:${caIssuers}\n`);
      ext = `${name}.ext`;
    }
    openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`));
    openssl('x509', '-req', '-sha256', '-days', '2', '-in', at(`${name}.csr`), '-CA', at(`${issuer}.pem`), '-CAkey', at(`${issuer}.key`), '-set_serial', String(serial++), '-extfile', at(ext), '-out', at(`${name}.pem`));
    return read(name);
  };
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', '/CN=Herald Test Root CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', at('root.key'), '-out', at('root.pem'));
  const root = read('root');
  const intermediate = issue('intermediate', '/CN=Herald Test Intermediate CA', 'root', 'ca.ext');
  let made = 0;
  return {
    root,
    intermediate,
    leaf: (subject, caIssuers) => issue(`leaf${made++}`, subject, 'intermediate', 'leaf.ext', caIssuers),
    intermediateDer: new X509Certificate(intermediate.pem).raw,
    selfSigned(subject) {
      const name = `self${made++}`;
      openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', subject, '-keyout', at(`${name}.key`), '-out', at(`${name}.pem`));
      return read(name);
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** PayPal's subject on its signing certificate */
export const PAYPAL_SUBJECT = '/C=US/ST=California/L=San Jose/O=PayPal, Inc./CN=messageverificationcerts.paypal.com';
