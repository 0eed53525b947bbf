/**
 * MongoDB's own rules for database names (Unix deployments): fewer than 64 bytes, none of
 * `/ \ . space " $` and no NUL. The agent enforces them before any tool runs, which also keeps
 * names safe inside mongorestore's --nsFrom/--nsTo patterns (where `$` cannot be expressed).
 * Returns the problem as a sentence, or undefined when the name is acceptable.
 */
export function checkDatabaseName(name: string): string | undefined {
  if (name.length === 0) return 'the database name is empty';
  if (Buffer.byteLength(name, 'utf8') >= 64) return 'the database name must be shorter than 64 bytes';
  const bad = [...name].find((c) => '/\\. "$\0'.includes(c));
  if (bad !== undefined) {
    const shown = bad === '\0' ? 'NUL' : bad === ' ' ? 'a space' : `"${bad}"`;
    return `the database name "${name.replace(/\0/g, '\\0')}" contains ${shown}, which MongoDB does not allow in database names`;
  }
  return undefined;
}

export class DatabaseNameError extends Error {
  override readonly name = 'DatabaseNameError';
}

export function assertDatabaseName(name: string): void {
  const problem = checkDatabaseName(name);
  if (problem) throw new DatabaseNameError(problem.charAt(0).toUpperCase() + problem.slice(1) + '.');
}
