import { routeDeclarations } from '../routes/index.js';
import { API_VERSION, openApiDocument } from './openapi.js';

interface Operation {
  operationId: string;
  security: unknown[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

const doc = openApiDocument(routeDeclarations(), API_VERSION) as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};
const op = (path: string, method: string) => doc.paths[path]![method]!;
const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
const schemaOf = (o: Operation, status: number) =>
  o.responses[status]?.content?.['application/json']?.schema as { $ref?: string } | undefined;

describe('the OpenAPI document', () => {
  it('names every operation once', () => {
    const ids = operations.map((o) => o.operationId);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares streamed bodies as application/octet-stream binary, both ways', () => {
    const binary = { type: 'string', format: 'binary' };
    const upload = op('/api/agent/backups/{id}/data', 'put');
    expect(upload.requestBody?.content['application/octet-stream']?.schema).toMatchObject(binary);
    expect(upload.security).toEqual([{ apiKey: [] }]);
    for (const [path, method] of [
      ['/api/backups/{id}/download', 'get'],
      ['/api/agent/restores/{id}/data', 'get'],
    ] as const) {
      const content = op(path, method).responses['200']!.content!;
      expect(Object.keys(content)).toEqual(['application/octet-stream']);
      expect(content['application/octet-stream']!.schema).toMatchObject(binary);
    }
  });

  it("documents each route's refusals with the error body of their status", () => {
    for (const o of operations) {
      if (o.security.length) {
        expect(schemaOf(o, 401)?.$ref).toBe('#/components/schemas/ApiError');
        // Signing out is allowed to a suspended account: it has no 403.
        if (o.operationId !== 'logout') expect(schemaOf(o, 403)).toBeDefined();
      }
      if (o.requestBody?.content['application/json']) expect(schemaOf(o, 413)).toBeDefined();
    }
    expect(schemaOf(op('/api/auth/logout', 'post'), 403)).toBeUndefined();
    const backup = op('/api/backups/{id}', 'get');
    expect(schemaOf(backup, 404)?.$ref).toBe('#/components/schemas/ApiError');
    expect(schemaOf(op('/api/backups/{id}', 'delete'), 409)?.$ref).toBe('#/components/schemas/ApiError');
    expect(schemaOf(op('/api/backups', 'post'), 429)?.$ref).toBe(
      '#/components/schemas/BackupRateLimitedError',
    );
    expect(schemaOf(op('/api/auth/login', 'post'), 429)?.$ref).toBe('#/components/schemas/RateLimitedError');
    // A banned account's details, or an inactive account's plain error (code ACCOUNT_INACTIVE).
    expect(schemaOf(op('/api/user/profile', 'get'), 403)).toEqual({
      anyOf: [{ $ref: '#/components/schemas/AccountBannedError' }, { $ref: '#/components/schemas/ApiError' }],
    });
  });

  it('lists the error codes of the contracts table', () => {
    expect(doc.components.schemas.ErrorCode).toMatchObject({
      enum: expect.arrayContaining(['NOT_FOUND', 'ACCOUNT_BANNED', 'BACKUP_RATE_LIMITED']),
    });
  });
});
