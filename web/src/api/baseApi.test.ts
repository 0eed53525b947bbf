import fs from 'node:fs';
import path from 'node:path';
import { PUBLIC_ENDPOINTS } from './baseApi';
import { generatedApi } from './generated';

interface Operation {
  operationId: string;
  security?: unknown[];
}

describe('baseApi', () => {
  it('sends no token to exactly those of the web client operations the OpenAPI document declares public', () => {
    const file = path.join(__dirname, '../../../services/gateway/openapi.json');
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    // Operations the web client leaves out (the payment provider's webhook, the agent's data plane).
    const inClient = new Set(Object.keys(generatedApi.endpoints));
    const open = operations
      .filter((op) => op.security?.length === 0 && inClient.has(op.operationId))
      .map((op) => op.operationId);
    expect([...PUBLIC_ENDPOINTS].sort()).toEqual(open.sort());
  });
});
