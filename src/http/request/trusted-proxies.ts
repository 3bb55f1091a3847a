import { BlockList, isIP } from 'node:net';

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is 10.0.0.1 */
export const plainAddress = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

/**
 * The client address of a request, from the socket, or, when the socket's peer is a trusted
 * proxy, from what the proxies wrote: `Forwarded` (RFC 7239) when present, else
 * `X-Forwarded-For`. The list is read from the right (the hop nearest herald), skipping trusted
 * proxies, so the first address no trusted proxy vouches for wins: the left end is whatever the
 * client wrote, and never decides. With no trusted proxy, the headers are ignored.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  private readonly empty: boolean;

  constructor(cidrs: readonly string[]) {
    this.empty = cidrs.length === 0;
    for (const cidr of cidrs) {
      const [address, prefix] = cidr.split('/') as [string, string | undefined];
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(address, type);
      else this.list.addSubnet(address, Number(prefix), type);
    }
  }

  trusts(address: string): boolean {
    if (this.empty) return false;
    const plain = plainAddress(address);
    const family = isIP(plain);
    return family !== 0 && this.list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  }

  clientAddress(peer: string, headers: { forwarded?: string; xForwardedFor?: string }): string {
    if (!this.trusts(peer)) return plainAddress(peer);
    const hops = headers.forwarded !== undefined ? forwardedFor(headers.forwarded) : (headers.xForwardedFor ?? '').split(',').map((s) => s.trim());
    let client = plainAddress(peer);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = plainAddress(hops[i] ?? '');
      // an unreadable entry (`unknown`, junk) ends the walk: the last hop that could be read is the client
      if (!isIP(hop)) break;
      client = hop;
      if (!this.trusts(hop)) break;
    }
    return client;
  }
}

/** the `for=` values of a Forwarded header, in order, without quotes, brackets or ports */
function forwardedFor(header: string): string[] {
  const out: string[] = [];
  for (const element of header.split(',')) {
    for (const pair of element.split(';')) {
      const at = pair.indexOf('=');
      if (at < 0 || pair.slice(0, at).trim().toLowerCase() !== 'for') continue;
      let value = pair.slice(at + 1).trim().replace(/^"|"$/g, '');
      if (value.startsWith('[')) value = value.slice(1, value.indexOf(']') >>> 0);
      else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.slice(0, value.indexOf(':'));
      out.push(value);
    }
  }
  return out;
}
