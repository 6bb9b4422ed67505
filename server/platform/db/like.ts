/** An ILIKE pattern matching text that contains `text` as typed: its `%`, `_` and `\` match themselves. */
export const containing = (text: string) => `%${text.trim().replace(/[\\%_]/g, '\\$&')}%`;
