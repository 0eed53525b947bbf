import fs from 'node:fs';
import path from 'node:path';
import { PUBLIC_ENDPOINTS } from './baseApi';

interface Operation {
  operationId: string;
  security?: unknown[];
}

describe('baseApi', () => {
  it('sends no token to exactly the operations the OpenAPI document declares public', () => {
    const file = path.join(__dirname, '../../../services/gateway/openapi.json');
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const open = operations.filter((op) => op.security?.length === 0).map((op) => op.operationId);
    expect([...PUBLIC_ENDPOINTS].sort()).toEqual(open.sort());
  });
});
