/** A plain JSON object, as stored in JSONB columns (drafts, profiles, details). */
export type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * JSON merge patch (RFC 7396): objects merge key by key, `null` removes a key, arrays and scalars
 * replace. Neither argument is changed.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const merged: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = mergePatch(merged[key], value);
  }
  return merged;
}

/** The value at a dotted path (`owner.personalDetails.dob`), or undefined. */
export function valueAt(document: unknown, dottedPath: string): unknown {
  let node = document;
  for (const key of dottedPath.split('.')) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

const isBlank = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** The dotted paths whose value is missing or blank in `document` (a form's untouched field is ''). */
export function missingPaths(document: unknown, paths: readonly string[]): string[] {
  return paths.filter((path) => isBlank(valueAt(document, path)));
}
