import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RouteConflictError, RouteTable } from './route-table.ts';

const handler = () => undefined;

describe('RouteTable', () => {
  it('refuses a route two plugins claim, naming both', () => {
    const table = new RouteTable();
    table.registrar('kyc').add({ method: 'GET', path: '/api/v1/things/:id', handler });
    expect(() =>
      table.registrar('messaging').add({ method: ['POST', 'GET'], path: '/api/v1/things/:thingId', handler }),
    ).toThrow(
      new RouteConflictError('route GET /api/v1/things/:thingId is claimed by both kyc and messaging'),
    );
  });

  it('refuses a plugin declaring the same route twice, and ALL overlapping a method', () => {
    const table = new RouteTable();
    table.registrar('auth').add({ method: 'POST', path: '/auth/login', handler });
    expect(() => table.registrar('auth').add({ method: 'ALL', path: '/auth/login', handler })).toThrow(
      'route POST /auth/login is declared twice by plugin auth',
    );
  });

  it('allows the same path for different methods from different plugins', () => {
    const table = new RouteTable();
    table.registrar('a').add({ method: 'GET', path: '/x', handler });
    table.registrar('b').add({ method: 'POST', path: '/x', handler });
    expect(table.find('GET', '/x')?.route.owner).toBe('a');
    expect(table.find('POST', '/x')?.route.owner).toBe('b');
  });

  it('finds routes with params, ignores the query string, answers HEAD for GET', () => {
    const table = new RouteTable();
    table.registrar('a').add({ method: 'GET', path: '/leads/:id', exempt: true, handler });
    expect(table.find('GET', '/leads/42?x=1')).toMatchObject({
      params: { id: '42' },
      route: { pattern: '/leads/:id', exempt: true },
      hasQuery: true,
    });
    expect(table.find('GET', '/leads/42')?.hasQuery).toBe(false);
    expect(table.find('GET', '/leads/42?')?.hasQuery).toBe(false);
    expect(table.find('HEAD', '/leads/42')?.route.pattern).toBe('/leads/:id');
    expect(table.find('DELETE', '/leads/42')).toBeNull();
    expect(table.find('GET', '/leads')).toBeNull();
  });

  it('lists routes for operators', () => {
    const table = new RouteTable();
    table.registrar('a').add({ method: 'POST', path: '/p', sensitive: true, handler });
    expect(table.list()).toEqual([
      { owner: 'a', methods: ['POST'], pattern: '/p', exempt: false, sensitive: true },
    ]);
  });

  it('lists the schemas a route declared, so tests can build requests for every route', () => {
    const table = new RouteTable();
    const body = z.object({ name: z.string() });
    table.registrar('a').add({ method: 'PUT', path: '/things/:id', schema: { body }, handler });
    expect(table.list()[0]?.schema?.body).toBe(body);
  });

  it("lists a route's own error media type, so tests know which error document to expect", () => {
    const table = new RouteTable();
    const errorFormat = { mediaType: 'application/scim+json', render: () => ({}) };
    table.registrar('a').add({ method: 'GET', path: '/scim/Users', errorFormat, handler });
    expect(table.list()[0]?.errorMediaType).toBe('application/scim+json');
    expect(table.find('GET', '/scim/Users')?.route.errorFormat).toBe(errorFormat);
  });
});
