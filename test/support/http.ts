/** Small HTTP helpers shared by the tests that talk to a gateway the way a browser or a client would. */

/** POST a JSON body. */
export function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The session token a response set in the `authjs.session-token` cookie, or '' when it set none. */
export function sessionCookieOf(res: Response): string {
  return /^authjs\.session-token=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
}

/** The `code` of a problem+json body. */
export async function problemCode(res: Response): Promise<string> {
  return ((await res.json()) as { code: string }).code;
}
