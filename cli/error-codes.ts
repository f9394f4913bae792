/** Branching on an error's stable code (errors from nimbus arrive as `{ code, message }`). */
export function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
