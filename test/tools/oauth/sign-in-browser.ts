import type { TestApp } from '../../http/app-fixture.js';

/**
 * A person's browser: opens the authorization URL and follows its redirects (the authorization
 * server's consent is immediate in the test's provider) until the page herald answers at its
 * callback. herald's public URL (gateway.publicUrl) is reached through its app, as a TLS proxy in
 * front of it would pass the request on; every other address is the network's.
 */
export async function signInAsBrowser(herald: TestApp, publicUrl: string, authorizationUrl: string): Promise<Response> {
  let url = authorizationUrl;
  for (let hops = 0; hops < 10; hops++) {
    const response = url.startsWith(publicUrl) ? await herald.request(url.slice(publicUrl.length) || '/') : await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return response;
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

/** fetch as the outside world sees herald at its public URL: through its app */
export const publicFetch = (herald: () => TestApp, publicUrl: string): typeof fetch =>
  (async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    return url.startsWith(publicUrl) ? herald().request(url.slice(publicUrl.length), init) : fetch(input, init);
  }) as typeof fetch;
