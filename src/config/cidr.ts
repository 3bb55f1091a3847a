import { isIP } from 'node:net';

/** a CIDR (`10.0.0.0/8`, `fd00::/8`) or a single address: the form `gateway.trustedProxies` accepts */
export function isCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  const family = isIP(address ?? '');
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
