/** The token of an `Authorization: Bearer ...` header, or undefined. Without dependencies: every service's auth reads it. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}
