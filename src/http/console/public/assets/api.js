// The admin API, as the signed-in console calls it: the session cookie goes by itself
// (same origin), the CSRF token in a header on every state-changing request.

let csrf = null;

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export function setCsrf(token) {
  csrf = token;
}

// the operator's tracing UI (tracing.linkTemplate), told with the session
let traceLinkTemplate = null;

export function setTraceLinks(template) {
  traceLinkTemplate = template ?? null;
}

/** the URL of a trace in the operator's tracing UI, or null without a template (or a trace id) */
export function traceUrl(traceId) {
  return traceId && traceLinkTemplate ? traceLinkTemplate.replaceAll('{traceId}', encodeURIComponent(traceId)) : null;
}

async function call(method, path, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf ?? '';
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  const data = res.headers.get('content-type')?.includes('json') ? await res.json() : null;
  if (res.status === 401 && !path.startsWith('/console/session')) window.dispatchEvent(new CustomEvent('herald:signed-out'));
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export const api = {
  get: (path) => call('GET', `/admin${path}`),
  post: (path, body) => call('POST', `/admin${path}`, body),
  patch: (path, body) => call('PATCH', `/admin${path}`, body),
  del: (path) => call('DELETE', `/admin${path}`),
  session: () => call('GET', '/console/session'),
  signIn: (token) => call('POST', '/console/session', { token }),
  signOut: () => call('DELETE', '/console/session'),
};

/** an upload with progress (fetch cannot report it): XMLHttpRequest, same cookie and CSRF header */
export function upload(path, form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/admin${path}`);
    xhr.setRequestHeader('x-csrf-token', csrf ?? '');
    xhr.upload.addEventListener('progress', (e) => e.lengthComputable && onProgress(e.loaded / e.total));
    xhr.addEventListener('load', () => {
      let data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) resolve(data);
      else reject(new ApiError(xhr.status, data));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, { error: 'network error' })));
    xhr.send(form);
  });
}

/** query string of the defined values */
export function qs(params) {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length ? `?${new URLSearchParams(entries)}` : '';
}
