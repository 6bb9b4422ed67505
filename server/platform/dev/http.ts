/** How provider-state handlers drive the platform: JSON over HTTP, as any client would. */

/** One call; answers the parsed body of a 2xx reply, else throws an error naming the call and the error code. */
export async function platformCall(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<any> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const { request } = await import('undici'); // loaded when a state is first set up, not at start-up
  const res = await request(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.body.text();
  const body = text ? JSON.parse(text) : undefined;
  if (res.statusCode < 200 || res.statusCode > 299) {
    throw new Error(
      `${method} ${path} answered ${res.statusCode} ${body?.error?.code ?? ''}: ${body?.error?.message ?? text}`,
    );
  }
  return body;
}
