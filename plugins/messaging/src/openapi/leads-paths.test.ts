import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { buildStaffApiDocument } from './document.ts';

type Operation = {
  operationId: string;
  deprecated?: boolean;
  responses: Record<string, { headers?: object }>;
};

describe('the leads operations of the staff API document', () => {
  const document = buildStaffApiDocument();
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const operation = (path: string, method: string) => paths[path]?.[method] as Operation;

  it('are valid OpenAPI 3.1', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('cover every leads route, each with its 401 and 500', () => {
    const routes = [
      ['/api/v1/leads', 'get'],
      ['/api/v1/leads', 'post'],
      ['/api/v1/leads/v2', 'get'],
      ['/api/v1/leads/v2/summary', 'get'],
      ['/api/v1/leads/v2/export.csv', 'get'],
      ['/api/v1/leads/v2/{id}', 'get'],
      ['/api/v1/leads/v2/{id}', 'patch'],
    ];
    for (const [path, method] of routes) {
      const op = operation(path as string, method as string);
      expect(op?.operationId, `${method} ${path}`).toEqual(expect.any(String));
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '500']));
    }
  });

  it('mark the legacy API deprecated, with its Deprecation and Link headers', () => {
    for (const method of ['get', 'post']) {
      const op = operation('/api/v1/leads', method);
      expect(op.deprecated).toBe(true);
      const success = op.responses[method === 'get' ? '200' : '201'];
      expect(Object.keys(success?.headers ?? {})).toEqual(expect.arrayContaining(['Deprecation', 'Link']));
    }
    expect(operation('/api/v1/leads/v2', 'get').deprecated).toBeUndefined();
  });
});
