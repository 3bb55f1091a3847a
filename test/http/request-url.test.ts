import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { absoluteUrl, parsedUrl } from '../../src/http/request/request-url.js';

/** what the URL was before the plain case was joined without the parser: the parser's answer for every request */
function byParser(incoming: IncomingMessage, target: string): string | undefined {
  const host = incoming.headers.host;
  if (!host) return undefined;
  return parsedUrl((incoming.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http', host, target);
}

const request = (host: string | undefined, encrypted = false) => ({ headers: { host }, socket: { encrypted } }) as unknown as IncomingMessage;

const HOSTS = [
  'localhost', 'localhost:8080', '127.0.0.1:3000', '127.0.0.1', '127.1', '0127.0.0.1', '0x7f.0.0.1', '256.0.0.1', '1.2.3.4.5',
  'example.com', 'Example.COM', 'example.com.', 'a..b', 'foo.123', '123', 'hooks.example.com:443', 'hooks.example.com:80',
  'h:0', 'h:080', 'h:65535', 'h:65536', 'h:', '-', 'a-.b', 'xn--nxasmq6b.com', 'xn--zz', 'a_b', 'a b', 'a.0x1', '0x7f', 'foo.0x', 'b.0xg', 'a.0x:8080', '0xg.com', '[::1]:8080', 'user@host', 'h%41',
];
const TARGETS = [
  '/hooks/agent', '/hooks/agent?x=1&y=2', '/hooks', '/hooks?', '/hooks/a|b^c[d]', "/hooks/a?q='x'", '/hooks/a b', '/hooks/a%20b', '/hooks/%zz',
  '/hooks/%2e%2e/admin', '/hooks/%2E/x', '/hooks/./x', '/hooks/../x', '/hooks/.well-known', '/hooks/a.b/c', '/hooks//double', '/hooks/a#frag',
  '/hooks/a"b', '/hooks/a<b>', '/hooks/a`b', '/hooks/{x}', '/hooks/é', '/hooks/a\tb', '/hooks?x=%2e', '/hooks?x=/./', '/hooks/~user/!$&()*+,;=:@',
];

describe('absoluteUrl', () => {
  it('is what the URL parser makes of the request, for plain and odd hosts and targets alike', () => {
    for (const host of [...HOSTS, undefined])
      for (const target of TARGETS)
        for (const encrypted of [false, true]) expect(absoluteUrl(request(host, encrypted), target), `${encrypted ? 'https' : 'http'} ${host} ${target}`).toBe(byParser(request(host, encrypted), target));
  });

  it('agrees with the parser on random hosts and targets', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    for (let i = 0; i < 50_000; i++) {
      const host = pick('abcfgxn-.0123456789:A', 1 + Math.floor(random() * 12));
      const target = `/${pick('abAZ09-._~%2eE/?&=#|^[]\'" \\é', Math.floor(random() * 16))}`;
      expect(absoluteUrl(request(host), target), `${host} ${target}`).toBe(byParser(request(host), target));
    }
  });
});
