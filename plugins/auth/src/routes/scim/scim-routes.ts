import type { Request, Response } from 'express';
import type { RouteRegistrar } from '../../../../../gateway/src/plugin-api.ts';
import { GROUP_RESOURCE, USER_RESOURCE } from '../../domain/scim/attributes.ts';
import { listQuerySchema, projectionQuerySchema } from '../../domain/scim/list-query.ts';
import { project, projection, returns } from '../../domain/scim/projection.ts';
import { authErrors } from '../../errors.ts';
import type { ScimGroupService } from '../../service/scim/group-service.ts';
import type { ScimUserService } from '../../service/scim/user-service.ts';
import { scimCallerOf } from './scim-authentication.ts';
import type { scimErrorFormat } from './scim-wire.ts';
import { SCIM_BASE_PATH, sendScim } from './scim-wire.ts';

/** What every SCIM route shares: exempt from the API gate, its own bearer token, SCIM's error document. */
export interface ScimRouteOptions {
  readonly exempt: true;
  readonly authenticate: (req: Request, res: Response) => Promise<void>;
  readonly errorFormat: typeof scimErrorFormat;
}

/**
 * The SCIM 2.0 resource endpoints (README, "SCIM provisioning"): Users and Groups, each with list (filter,
 * paging, attributes), create, read, replace, patch and delete. Exempt from the API gate: identity providers
 * authenticate with a SCIM bearer token in each route's `authenticate` step.
 */
export function registerScimResourceRoutes(
  routes: RouteRegistrar,
  common: ScimRouteOptions,
  deps: { users: ScimUserService; groups: ScimGroupService },
): void {
  const users = `${SCIM_BASE_PATH}${USER_RESOURCE.endpoint}`;
  const groups = `${SCIM_BASE_PATH}${GROUP_RESOURCE.endpoint}`;
  const id = (params: Record<string, string>) => params.id ?? '';

  routes.add({
    ...common,
    method: 'GET',
    path: users,
    schema: { query: listQuerySchema },
    handler: async (_req, res, { query }) => {
      const list = await deps.users.list(query);
      sendScim(res, 200, projectList(list, projection(USER_RESOURCE, query)));
    },
  });
  routes.add({
    ...common,
    method: 'POST',
    path: users,
    handler: async (req, res) => created(res, await deps.users.create(req.body, scimCallerOf(req))),
  });
  routes.add({
    ...common,
    method: 'GET',
    path: `${users}/:id`,
    schema: { query: projectionQuerySchema },
    handler: async (_req, res, { params, query }) => {
      sendScim(res, 200, project(await deps.users.get(id(params)), projection(USER_RESOURCE, query)));
    },
  });
  routes.add({
    ...common,
    method: 'PUT',
    path: `${users}/:id`,
    handler: async (req, res, { params }) =>
      sendScim(res, 200, await deps.users.replace(id(params), req.body, scimCallerOf(req))),
  });
  routes.add({
    ...common,
    method: 'PATCH',
    path: `${users}/:id`,
    handler: async (req, res, { params }) =>
      sendScim(res, 200, await deps.users.patch(id(params), req.body, scimCallerOf(req))),
  });
  routes.add({
    ...common,
    method: 'DELETE',
    path: `${users}/:id`,
    handler: async (req, res, { params }) => {
      await deps.users.remove(id(params), scimCallerOf(req));
      res.status(204).end();
    },
  });

  routes.add({
    ...common,
    method: 'GET',
    path: groups,
    schema: { query: listQuerySchema },
    handler: async (_req, res, { query }) => {
      // Entra ID lists groups with excludedAttributes=members: members are then not even read.
      const selected = projection(GROUP_RESOURCE, query);
      const list = await deps.groups.list(query, returns(selected, 'members'));
      sendScim(res, 200, projectList(list, selected));
    },
  });
  routes.add({
    ...common,
    method: 'POST',
    path: groups,
    handler: async (req, res) => created(res, await deps.groups.create(req.body, scimCallerOf(req))),
  });
  routes.add({
    ...common,
    method: 'GET',
    path: `${groups}/:id`,
    schema: { query: projectionQuerySchema },
    handler: async (_req, res, { params, query }) => {
      const selected = projection(GROUP_RESOURCE, query);
      sendScim(res, 200, project(await deps.groups.get(id(params), returns(selected, 'members')), selected));
    },
  });
  routes.add({
    ...common,
    method: 'PUT',
    path: `${groups}/:id`,
    handler: async (req, res, { params }) =>
      sendScim(res, 200, await deps.groups.replace(id(params), req.body, scimCallerOf(req))),
  });
  routes.add({
    ...common,
    method: 'PATCH',
    path: `${groups}/:id`,
    handler: async (req, res, { params }) =>
      sendScim(res, 200, await deps.groups.patch(id(params), req.body, scimCallerOf(req))),
  });
  routes.add({
    ...common,
    method: 'DELETE',
    path: `${groups}/:id`,
    handler: async (req, res, { params }) => {
      await deps.groups.remove(id(params), scimCallerOf(req));
      res.status(204).end();
    },
  });

  // Anything else under the SCIM base (an unknown resource type, /Bulk, /Me, a method a resource does not
  // take) is a SCIM 404, after the token: without one, nobody learns which endpoints exist.
  routes.add({
    ...common,
    method: 'ALL',
    path: `${SCIM_BASE_PATH}/*`,
    handler: () => {
      throw authErrors.create('auth.scim.not_found', { detail: 'No such SCIM endpoint' });
    },
  });
}

function created(res: Response, resource: Record<string, unknown>): void {
  const location = (resource.meta as { location?: unknown } | undefined)?.location;
  if (typeof location === 'string') res.setHeader('Location', location);
  sendScim(res, 201, resource);
}

function projectList(list: Record<string, unknown>, selected: ReturnType<typeof projection>) {
  const resources = Array.isArray(list.Resources)
    ? (list.Resources as Array<Parameters<typeof project>[0]>)
    : [];
  return { ...list, Resources: resources.map((resource) => project(resource, selected)) };
}
