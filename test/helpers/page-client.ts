/**
 * A browser without a browser, for the pages' HTTP behaviour: keeps cookies, does not follow
 * redirects (tests look at them), and reads the CSRF token of the last page it got.
 */
export interface PageAnswer {
  status: number;
  headers: Headers;
  body: string;
}

export function createPageClient(baseUrl: string) {
  const cookies = new Map<string, string>();
  let csrf: string | undefined;

  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') cookies.delete(name.trim());
      else cookies.set(name.trim(), value);
    }
  };

  async function request(method: string, path: string, body?: URLSearchParams | FormData): Promise<PageAnswer> {
    const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
    const headers: Record<string, string> = {};
    if (cookies.size > 0) headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { method, headers, body: body ?? null, redirect: 'manual' });
    remember(response);
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) csrf = token;
    return { status: response.status, headers: response.headers, body: text };
  }

  return {
    cookies,
    get: (path: string) => request('GET', path),
    /** POSTs a form; with the last page's CSRF token unless `_csrf` is given (null: none at all). */
    post(path: string, fields: Record<string, string | null> = {}) {
      const form = new URLSearchParams();
      const withToken = '_csrf' in fields ? fields : { ...fields, _csrf: csrf ?? '' };
      for (const [name, value] of Object.entries(withToken)) if (value !== null) form.append(name, value);
      return request('POST', path, form);
    },
    postMultipart: (path: string, form: FormData) => {
      if (!form.has('_csrf') && csrf) form.append('_csrf', csrf);
      return request('POST', path, form);
    },
    get csrfToken() {
      return csrf;
    },
  };
}

/** The visible text of an HTML answer, tags removed and spaces collapsed, for asserting messages. */
export const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&#34;|&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
